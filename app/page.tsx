export default function Home() {
  return (
    <main>
      <h1>MA2H Hub</h1>
      <p>
        Agents: discover this Hub at <code>/.well-known/ma2h</code> and submit to <code>/v1/messages</code>.
      </p>
    </main>
  );
}

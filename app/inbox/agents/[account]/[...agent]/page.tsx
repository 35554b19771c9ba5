import Link from "next/link";
import { notFound } from "next/navigation";
import { requireHuman } from "@/lib/next/current-human";
import { LocalTime } from "@/components/Clock";
import { LiveRefresh } from "@/components/LiveRefresh";
import { agentPageFor, presenceWording } from "@/lib/inbox/directives";
import { DirectiveCompose } from "../../../_components/directive-compose";
import { DirectiveTable } from "../../../_components/directive-table";

export const dynamic = "force-dynamic";
export const metadata = { title: "Agent · MA2H Hub", referrer: "no-referrer" };

/** One agent: whether it is listening (§15), a directive composer (§13) and what was sent to it. */
export default async function AgentPage({ params }: { params: Promise<{ account: string; agent: string[] }> }) {
  const { account, agent } = await params;
  const slug = decodeURIComponent(account);
  const agentId = agent.map(decodeURIComponent).join("/");
  const human = await requireHuman(`/inbox/agents/${account}/${agent.join("/")}`);
  const page = await agentPageFor(human.userId, slug, agentId);
  if (!page) notFound();
  const p = page.presence;
  return (
    <main className="agent-page">
      <nav className="crumbs">
        <Link prefetch={false} href="/inbox">
          ← Inbox
        </Link>
        <Link prefetch={false} href="/inbox/directives">
          Directives
        </Link>
        <span className="account">{page.seat.slug}</span>
      </nav>
      <h1>
        <code data-testid="agent-id">{page.agentId}</code>
      </h1>
      <p className={`presence presence-${p.state}`} data-testid="agent-presence">
        {p.state}
        {p.last_seen && (
          <>
            {" "}
            — last seen <LocalTime iso={p.last_seen} />
          </>
        )}
      </p>
      {page.canSend ? (
        <DirectiveCompose
          account={page.seat.slug}
          agent={page.agentId}
          presenceState={p.state}
          presenceText={presenceWording(p)}
        />
      ) : (
        <p className="hint">Your role (viewer) reads directives but does not send them.</p>
      )}
      <h2>Sent to this agent</h2>
      <DirectiveTable rows={page.directives} showAgent={false} />
      <LiveRefresh />
    </main>
  );
}

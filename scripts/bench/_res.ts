import { createTestDatabase } from "../../test/support/database";
import { provisionAccount, releaseDatabase, useDatabase } from "../../test/support/provision";
import { benchEnvelope } from "./lib";
async function main() {
  process.env.MA2H_RATE_LIMIT_PER_MINUTE = "1000000000";
  process.env.MA2H_INBOX_DEPTH = "1000000000";
  const database = await createTestDatabase();
  await useDatabase(database.url);
  const { keys, tokens } = await provisionAccount("r", ["r/agent"], [{ handle: "op", role: "owner" }] as never);
  const { authenticate, requireAgent } = await import("../../lib/principals/authenticate");
  const { submitMessage } = await import("../../lib/messages/submit");
  const { resolveMessage } = await import("../../lib/messages/resolve");
  const { loadMessage } = await import("../../lib/messages/access");
  const { seatFor } = await import("../../lib/principals/seats");
  const principal = requireAgent(await authenticate(new Headers({ authorization: `Bearer ${keys["r/agent"]}` })));
  const pat = new Headers({ authorization: `Bearer ${(tokens as Record<string, string>).op}` });
  const human = await authenticate(pat) as { userId: string };
  const N = 400;
  const { POST: resolvePost } = await import("../../app/v1/messages/[id]/resolve/route");
  const ids: string[] = [];
  for (let i = 0; i < 2 * N + 100; i++) ids.push((await submitMessage(principal, JSON.parse(benchEnvelope("ask", "r/agent", i, "r")))).ack.id);
  let k = 0;
  const steps: [string, () => Promise<unknown>][] = [
    ["authenticate PAT (cached)", () => authenticate(pat)],
    ["loadMessage", () => loadMessage(ids[0]!)],
    ["seatFor", () => seatFor(human.userId, principal.accountId)],
    ["resolveMessage (human)", () => resolveMessage({ kind: "human", userId: human.userId }, ids[k++]!, { resolution: "answered", value: "ship" })],
    ["resolve route handler", async () => { const id = ids[k++]!; const r = await resolvePost(new Request(`http://x/v1/messages/${id}/resolve`, { method: "POST", headers: { authorization: pat.get("authorization")!, "content-type": "application/json" }, body: JSON.stringify({ resolution: "answered", value: "ship" }) }), { params: Promise.resolve({ id }) }); if (r.status !== 200) throw new Error(String(r.status)); }],
  ];
  for (const [name, step] of steps) {
    if (name.startsWith("resolve")) { for (let i = 0; i < 20; i++) await step(); const c = process.cpuUsage(); const t = performance.now(); const w: number[] = [];
      for (let i = 0; i < N; i++) { const t1 = performance.now(); await step(); w.push(performance.now() - t1); }
      const u = process.cpuUsage(c); w.sort((a, b) => a - b);
      console.log(name.padEnd(30), ((u.user + u.system) / 1000 / N).toFixed(3), "ms CPU; wall p50", w[N / 2]!.toFixed(2), "p99", w[Math.floor(N * 0.99)]!.toFixed(2)); continue; }
    for (let i = 0; i < 100; i++) await step();
    const c = process.cpuUsage(); const t = performance.now();
    for (let i = 0; i < N; i++) await step();
    const u = process.cpuUsage(c);
    console.log(name.padEnd(30), ((u.user + u.system) / 1000 / N).toFixed(3), "ms CPU", ((performance.now() - t) / N).toFixed(3), "ms wall");
  }
  await releaseDatabase(); await database.drop(); process.exit(0);
}
main().catch((e) => { console.error(e); process.exit(1); });

import http from "node:http";
import { join } from "node:path";
import { createTestDatabase } from "../../test/support/database";
import { provisionAccount, releaseDatabase, useDatabase } from "../../test/support/provision";
import { benchEnvelope, logDir, send, startWeb } from "./lib";
async function main() {
  const database = await createTestDatabase();
  await useDatabase(database.url);
  const { keys, tokens } = await provisionAccount("r", ["r/agent"], [{ handle: "op", role: "owner" }] as never);
  const web = await startWeb(database.url, { MA2H_RATE_LIMIT_PER_MINUTE: "1000000000", MA2H_INBOX_DEPTH: "1000000000", REDIS_URL: "redis://127.0.0.1:6379/10" }, join(logDir(), "res2.log"));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const t = { host: "127.0.0.1", port: web.port };
  const time = async (label: string, n: number, f: (i: number) => Promise<number>) => {
    const w: number[] = [];
    for (let i = 0; i < n; i++) { const t0 = performance.now(); const s = await f(i); if (s >= 300) throw new Error(`${label} ${s}`); w.push(performance.now() - t0); }
    w.sort((a, b) => a - b);
    console.log(label.padEnd(24), "p50", w[Math.floor(n / 2)]!.toFixed(2), "p90", w[Math.floor(n * 0.9)]!.toFixed(2), "p99", w[Math.floor(n * 0.99)]!.toFixed(2));
  };
  const ids: string[] = [];
  for (const round of [1, 2]) {
    await time("GET /healthz", 300, async () => (await send(agent, t, { method: "GET", path: "/healthz", headers: {} })).status);
    await time("submit ask", 300, async (i) => { const r = await send(agent, t, { method: "POST", path: "/v1/messages", headers: { authorization: `Bearer ${keys["r/agent"]}`, "content-type": "application/json" }, body: benchEnvelope("ask", "r/agent", i, `r${round}`) }); ids.push(JSON.parse(r.body).id); return r.status; });
    await time("resolve (PAT)", 300, async () => (await send(agent, t, { method: "POST", path: `/v1/messages/${ids.shift()}/resolve`, headers: { authorization: `Bearer ${(tokens as Record<string, string>).op}`, "content-type": "application/json" }, body: JSON.stringify({ resolution: "answered", value: "ship" }) })).status);
  }
  await web.stop(); await releaseDatabase(); await database.drop(); process.exit(0);
}
main().catch((e) => { console.error(e); process.exit(1); });

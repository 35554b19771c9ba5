/**
 * Where a submit's CPU goes, in-process and without HTTP (docs/PERFORMANCE.md): times each step of
 * `POST /v1/messages` — authentication, the rate counter, reading and validating the body, the
 * one-statement submit — N times over on a fresh database, after a warm-up, and prints the CPU
 * (process.cpuUsage) and wall time per call of each. `node --import tsx scripts/bench/submit-parts.ts [N]`;
 * set REDIS_URL to time the Redis rate counter instead of PostgreSQL's.
 */
import { createTestDatabase } from "../../test/support/database";
import { provisionAccount, releaseDatabase, useDatabase } from "../../test/support/provision";
import { benchEnvelope } from "./lib";

const N = Number(process.argv[2] ?? 2000);

async function main(): Promise<void> {
  process.env.MA2H_RATE_LIMIT_PER_MINUTE = "1000000000";
  process.env.MA2H_INBOX_DEPTH = "1000000000";
  const database = await createTestDatabase();
  await useDatabase(database.url);
  const { keys } = await provisionAccount("parts", ["parts/agent"]);
  const { authenticate, requireAgent } = await import("../../lib/principals/authenticate");
  const { consumeSubmitBudget } = await import("../../lib/rate-limit");
  const { submitMessage } = await import("../../lib/messages/submit");
  const { readJsonObject } = await import("../../lib/http/body");
  const { parseMessage } = await import("@ma2h/protocol/message");
  const { payloadHash } = await import("../../lib/messages/submit");
  const headers = new Headers({ authorization: `Bearer ${keys["parts/agent"]}`, "content-type": "application/json" });
  const principal = requireAgent(await authenticate(headers));
  const bodies = (type: "notify" | "ask", i: number) => benchEnvelope(type, "parts/agent", i, "parts");
  let seq = 0;
  const steps: [string, () => Promise<unknown>][] = [
    ["authenticate (agent key)", async () => requireAgent(await authenticate(headers))],
    ["rate counter", () => consumeSubmitBudget(principal.agentRowId)],
    [
      "read + parse body",
      () =>
        readJsonObject(new Request("http://x/v1/messages", { method: "POST", headers, body: bodies("ask", seq++) }), {
          maxBytes: 1 << 20,
          requireJson: true,
          allowEmpty: false,
        }),
    ],
    ["schema validation (ask)", async () => parseMessage(JSON.parse(bodies("ask", seq++)))],
    ["§8.1 payload hash (JCS)", async () => payloadHash(JSON.parse(bodies("ask", seq++)))],
    ["submitMessage (notify)", () => submitMessage(principal, JSON.parse(bodies("notify", seq++)))],
    ["submitMessage (ask, keyed)", () => submitMessage(principal, JSON.parse(bodies("ask", seq++)))],
  ];
  for (const [name, step] of steps) {
    for (let i = 0; i < Math.min(200, N); i++) await step(); // warm-up
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < N; i++) await step();
    const wall = (performance.now() - t0) / N;
    const cpu = process.cpuUsage(cpu0);
    console.log(
      `${name.padEnd(28)} CPU ${((cpu.user + cpu.system) / 1000 / N).toFixed(3)} ms/call   wall ${wall.toFixed(3)} ms/call`,
    );
  }
  await releaseDatabase();
  await database.drop();
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

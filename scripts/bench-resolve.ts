/**
 * `npm run bench:resolve`: one resolve alone, to its `200` (docs/PERFORMANCE.md). On a fresh
 * database, the built web (Redis set, limits raised) and no worker, so nothing else runs: 300 open
 * pull asks are resolved one at a time by an operator's PAT over one keep-alive connection, after a
 * warm-up of 100; `GET /healthz` one at a time on the same connection is the framework's floor. The
 * whole set runs BENCH_RUNS times (default 3) and each figure is printed with its median. Needs
 * `npm run build` first. (bench:push times the same call while the worker pushes the previous answer.)
 */
import http from "node:http";
import { join } from "node:path";
import { createTestDatabase } from "../test/support/database";
import { provisionAccount, releaseDatabase, useDatabase } from "../test/support/provision";
import { benchEnvelope, logDir, machine, percentile, send, startWeb } from "./bench/lib";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const N = 300;

async function main(): Promise<void> {
  console.log(`bench:resolve — ${machine()}`);
  const database = await createTestDatabase();
  await useDatabase(database.url);
  const { keys, tokens } = await provisionAccount("res", ["res/agent"], [{ handle: "op", role: "owner" }]);
  const web = await startWeb(
    database.url,
    {
      MA2H_RATE_LIMIT_PER_MINUTE: "1000000000",
      MA2H_INBOX_DEPTH: "1000000000",
      REDIS_URL: "redis://127.0.0.1:6379/10",
    },
    join(logDir(), "resolve-web.log"),
  );
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const target = { host: "127.0.0.1", port: web.port };
  const submit = async (i: number, tag: string) => {
    const r = await send(agent, target, {
      method: "POST",
      path: "/v1/messages",
      headers: { authorization: `Bearer ${keys["res/agent"]}`, "content-type": "application/json" },
      body: benchEnvelope("ask", "res/agent", i, tag),
    });
    if (r.status !== 202) throw new Error(`submit ${r.status} ${r.body}`);
    return JSON.parse(r.body).id as string;
  };
  const timed = async (n: number, call: (i: number) => Promise<number>) => {
    const ms: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const status = await call(i);
      if (status !== 200) throw new Error(`status ${status}`);
      ms.push(performance.now() - t0);
    }
    return { p50: percentile(ms, 50), p99: percentile(ms, 99) };
  };
  const resolve = (id: string) =>
    send(agent, target, {
      method: "POST",
      path: `/v1/messages/${id}/resolve`,
      headers: { authorization: `Bearer ${tokens.op}`, "content-type": "application/json" },
      body: JSON.stringify({ resolution: "answered", value: "ship" }),
    }).then((r) => r.status);
  const rows: { healthz: number[]; resolve50: number[]; resolve99: number[] } = {
    healthz: [],
    resolve50: [],
    resolve99: [],
  };
  try {
    for (let run = 1; run <= RUNS; run++) {
      const ids: string[] = [];
      for (let i = 0; i < N + 100; i++) ids.push(await submit(i, `r${run}${Date.now()}`));
      await timed(100, () => resolve(ids.shift() as string)); // warm-up
      const healthz = await timed(N, () =>
        send(agent, target, { method: "GET", path: "/healthz", headers: {} }).then((r) => r.status),
      );
      const res = await timed(N, () => resolve(ids.shift() as string));
      rows.healthz.push(healthz.p50);
      rows.resolve50.push(res.p50);
      rows.resolve99.push(res.p99);
      console.log(
        `run ${run}: GET /healthz p50 ${healthz.p50.toFixed(2)} ms; resolve alone p50 ${res.p50.toFixed(2)} ms, p99 ${res.p99.toFixed(2)} ms`,
      );
    }
  } finally {
    agent.destroy();
    await web.stop();
    await releaseDatabase();
    await database.drop();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(
    `\nmedians of ${RUNS}: GET /healthz p50 ${median(rows.healthz).toFixed(2)} ms; one resolve alone p50 ${median(rows.resolve50).toFixed(2)} ms, p99 ${median(rows.resolve99).toFixed(2)} ms`,
  );
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

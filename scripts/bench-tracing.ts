/**
 * `npm run bench:tracing`: what tracing costs the submit path (docs/PERFORMANCE.md, "Tracing").
 * Two built web processes on one fresh database, the same load one after the other: tracing OFF
 * (no OTLP endpoint — the default) and tracing ON (exporting to a loopback OTLP sink that answers
 * 200). Each takes N submits one at a time over a keep-alive connection after a warm-up, with
 * `GET /healthz` on the same connection as the framework's floor in the same run; printed: p50/p99
 * and the web's CPU per submit. Then the off path itself, timed in this process: what
 * `submitSpan` adds around a submit when tracing is off, per call — against the off web's CPU per
 * submit. BENCH_RUNS (default 3) repeats all, and the medians are printed. Needs `npm run build`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { submitSpan } from "../lib/telemetry/spans";
import { useSpanExporter } from "../lib/telemetry/tracing";
import { createTestDatabase } from "../test/support/database";
import { provisionAccount, releaseDatabase, useDatabase } from "../test/support/provision";
import { benchEnvelope, cpuTicks, logDir, machine, percentile, send, startWeb } from "./bench/lib";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const N = 400;
const TICK_MS = 10; // CLK_TCK 100

async function main(): Promise<void> {
  console.log(`bench:tracing — ${machine()}`);
  const sink = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => res.end("{}"));
  });
  await new Promise<void>((r) => sink.listen(0, "127.0.0.1", () => r()));
  const endpoint = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  const database = await createTestDatabase();
  await useDatabase(database.url);
  const { keys } = await provisionAccount("trc", ["trc/agent"]);
  const common = { MA2H_RATE_LIMIT_PER_MINUTE: "1000000000", MA2H_INBOX_DEPTH: "1000000000" };
  const off = await startWeb(database.url, common, join(logDir(), "tracing-off-web.log"));
  const on = await startWeb(
    database.url,
    { ...common, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: "200" },
    join(logDir(), "tracing-on-web.log"),
  );
  const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  const medians: Record<string, number[]> = {};
  const note = (k: string, v: number) => {
    medians[k] = [...(medians[k] ?? []), v];
  };

  async function measure(web: typeof off, label: string, run: number) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const target = { host: "127.0.0.1", port: web.port };
    const submit = (i: number) =>
      send(agent, target, {
        method: "POST",
        path: "/v1/messages",
        headers: { authorization: `Bearer ${keys["trc/agent"]}`, "content-type": "application/json", traceparent },
        body: benchEnvelope("ask", "trc/agent", i, `${label}${run}${Date.now()}`),
      });
    const timed = async (n: number, call: (i: number) => Promise<{ status: number }>, ok: number) => {
      const ms: number[] = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        const r = await call(i);
        if (r.status !== ok) throw new Error(`status ${r.status}`);
        ms.push(performance.now() - t0);
      }
      return { p50: percentile(ms, 50), p99: percentile(ms, 99) };
    };
    await timed(100, submit, 202); // warm-up
    const floor = await timed(N, () => send(agent, target, { method: "GET", path: "/healthz", headers: {} }), 200);
    const c0 = cpuTicks(web.pid);
    const s = await timed(N, submit, 202);
    const cpuMs = ((cpuTicks(web.pid) - c0) * TICK_MS) / N;
    agent.destroy();
    console.log(
      `run ${run} tracing ${label}: submit p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms, web CPU ${cpuMs.toFixed(2)} ms/submit; GET /healthz p50 ${floor.p50.toFixed(2)} ms`,
    );
    note(`${label} p50`, s.p50);
    note(`${label} p99`, s.p99);
    note(`${label} cpu`, cpuMs);
    note(`${label} floor`, floor.p50);
  }

  try {
    for (let run = 1; run <= RUNS; run++) {
      await measure(off, "off", run);
      await measure(on, "on", run);
      // The off path alone, in this process: submitSpan with no tracer, around an empty function.
      await useSpanExporter(null);
      const req = new Request("http://hub.test/v1/messages", { method: "POST", headers: { traceparent } });
      const calls = 200_000;
      const loop = async (wrapped: boolean) => {
        const t0 = process.hrtime.bigint();
        if (wrapped) for (let i = 0; i < calls; i++) await submitSpan(req, async () => i);
        else for (let i = 0; i < calls; i++) await (async () => i)();
        return Number(process.hrtime.bigint() - t0) / calls / 1000;
      };
      // Alternated and the best of five each, so JIT warm-up and a busy moment favour neither.
      const wrapped: number[] = [];
      const bare: number[] = [];
      for (let k = 0; k < 5; k++) {
        bare.push(await loop(false));
        wrapped.push(await loop(true));
      }
      const perCallUs = Math.max(0, Math.min(...wrapped) - Math.min(...bare));
      note("off path us", perCallUs);
      console.log(`run ${run}: the off path adds ${perCallUs.toFixed(3)} µs per submit (beyond an empty async call)`);
    }
  } finally {
    await Promise.all([off.stop(), on.stop()]);
    sink.close();
    await releaseDatabase();
    await database.drop();
  }
  const median = (k: string) =>
    [...(medians[k] ?? [])].sort((a, b) => a - b)[Math.floor((medians[k] ?? []).length / 2)] ?? 0;
  const offCpuUs = median("off cpu") * 1000;
  console.log(`\nmedians of ${RUNS}:`);
  console.log(
    `  tracing off: submit p50 ${median("off p50").toFixed(2)} ms (${(median("off p50") / median("off floor")).toFixed(2)}× its /healthz floor), p99 ${median("off p99").toFixed(2)} ms, web CPU ${median("off cpu").toFixed(2)} ms`,
  );
  console.log(
    `  tracing on:  submit p50 ${median("on p50").toFixed(2)} ms (${(median("on p50") / median("on floor")).toFixed(2)}× its /healthz floor), p99 ${median("on p99").toFixed(2)} ms, web CPU ${median("on cpu").toFixed(2)} ms`,
  );
  console.log(
    `  the off path: ${median("off path us").toFixed(3)} µs per submit = ${((median("off path us") / offCpuUs) * 100).toFixed(4)} % of the off web's CPU per submit`,
  );
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

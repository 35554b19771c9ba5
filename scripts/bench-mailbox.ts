/**
 * `npm run bench:mailbox`: the human→agent mailbox (§8.7, §13) of the built Hub against its floor,
 * on one fresh PostgreSQL database, in three phases:
 *
 * 1. **Drain + ack throughput.** BENCH_DIRECTIVES (default 20 000) queued directives spread over 64
 *    agents; 64 concurrent agents each loop `GET /v1/inbox?max=32` → `POST /v1/inbox/ack {ids}` until
 *    their mailbox is empty or BENCH_SECONDS (default 15) have passed. Directives acked per second,
 *    drain and ack p50/p99, web and PostgreSQL CPU per directive. The directives are one real
 *    `authorDirective` per agent, cloned by one `INSERT … SELECT` (only the id, state and times
 *    differ) so seeding takes seconds; this phase measures draining, phase 3 measures authoring.
 *    Baseline: scripts/bench/baseline-server.ts doing the drain's single claiming
 *    `UPDATE … FOR UPDATE SKIP LOCKED … RETURNING` and one `UPDATE` per ack on the same table,
 *    with no authentication, signing, presence, audit, NOTIFY or framework.
 * 2. **Wake latency.** BENCH_WAKE_AGENTS (default 1 000) agents, each with one `GET /v1/inbox?wait=60`
 *    parked on its own connection; one directive authored to each (in-process `authorDirective`, at
 *    BENCH_WAKE_RATE per second, default 100, 8 at a time); time from the author's commit (its
 *    transaction returned) to the drain's answer.
 *    Then the same agents' long-polls on `GET /v1/messages/{id}?wait=60` for one open ask each,
 *    resolved in-process by `resolveMessage` at the same rate: the message long-poll's wake-up
 *    measured the same way on the same web.
 * 3. **Authoring throughput.** `POST /v1/directives` with an operator's PAT from 64 connections (one
 *    destination agent each) for BENCH_SECONDS after a 3 s warm-up, against the bare-INSERT baseline
 *    of bench:submit fed the same bodies.
 *
 * Figures are printed, never asserted. Needs `npm run build` first; PostgreSQL as for the tests.
 */
import http from "node:http";
import { join } from "node:path";
import { loadavg } from "node:os";
import { db } from "../lib/db";
import { authorDirective } from "../lib/mailbox/author";
import { resolveMessage } from "../lib/messages/resolve";
import { submitMessage } from "../lib/messages/submit";
import { authenticate, requireAgent } from "../lib/principals/authenticate";
import { createAgent } from "../lib/principals/agents";
import { createTestDatabase } from "../test/support/database";
import { provisionAccount, releaseDatabase, useDatabase } from "../test/support/provision";
import {
  benchEnvelope,
  cpuMeter,
  drive,
  logDir,
  longPoll,
  machine,
  percentile,
  send,
  sleep,
  startBaseline,
  startWeb,
  summarize,
  untilIdle,
  type Summary,
  type Target,
} from "./bench/lib";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const DIRECTIVES = Number(process.env.BENCH_DIRECTIVES ?? 20_000);
const WAKE_AGENTS = Number(process.env.BENCH_WAKE_AGENTS ?? 1000);
const WAKE_RATE = Number(process.env.BENCH_WAKE_RATE ?? 100);
const AGENTS = 64;
const MAX = 32;
/** New long-poll connections per 100 ms while parking (200/s: what one web takes, bench:longpoll). */
const PARK_BATCH = 20;
/** Authors (or resolvers) at work at once while waking, so the trigger rate is not one commit's latency. */
const TRIGGERS_IN_FLIGHT = 8;
const RAISED = {
  MA2H_RATE_LIMIT_PER_MINUTE: "1000000000",
  MA2H_INBOX_DEPTH: "1000000000",
  MA2H_INBOUND_MAILBOX_DEPTH: "1000000000",
};

let pgDatabase = "";
const load = () => loadavg()[0]!.toFixed(1);

/** Clones the template directives (one real authored row per agent) into `perAgent` queued rows each. */
async function seed(templateIds: string[], perAgent: number): Promise<number> {
  const t0 = Date.now();
  const n = await db().$executeRaw`
    INSERT INTO mailbox_entries (id, account_id, agent_row_id, kind, to_session, from_actor, author_user_id, ma2h_version,
                                 title, priority, content, sensitive, state, expires_at, drop_at, visible_at, deliveries, created_at)
    SELECT 'dir_' || md5(random()::text || t.id || g::text), t.account_id, t.agent_row_id, t.kind, t.to_session, t.from_actor,
           t.author_user_id, t.ma2h_version, t.title, t.priority, t.content, t.sensitive, 'queued', t.expires_at, t.drop_at,
           now() - interval '1 second', 0, now()
      FROM mailbox_entries t, generate_series(1, ${perAgent}::int) g
     WHERE t.id = ANY(${templateIds})
     ORDER BY g, t.id`;
  await db().$executeRawUnsafe("VACUUM ANALYZE mailbox_entries");
  console.log(`  seeded ${n} queued directives in ${((Date.now() - t0) / 1000).toFixed(1)} s (load ${load()})`);
  return n;
}

interface DrainRun {
  label: string;
  directives: number;
  seconds: number;
  perSecond: number;
  drain: number[];
  ack: number[];
  redelivered: number;
  failures: Record<string, number>;
  cpuPerDirective?: number;
  pgCpuPerDirective?: number;
}

/**
 * 64 agents, one connection each, drain(max=32) → ack until empty or SECONDS. One untimed
 * drain(max=1) → ack per agent first warms the routes and the connections.
 */
async function drainAll(label: string, target: Target, pid: number, bearers: string[]): Promise<DrainRun> {
  const agents = bearers.map(() => new http.Agent({ keepAlive: true, maxSockets: 1 }));
  const failures: Record<string, number> = {};
  const fail = (what: string) => (failures[what] = (failures[what] ?? 0) + 1);
  const drainMs: number[] = [];
  const ackMs: number[] = [];
  let directives = 0;
  let drained = 0;
  const step = async (w: number, max: number, timed: boolean): Promise<number> => {
    const auth = { authorization: `Bearer ${bearers[w]}` };
    let t0 = performance.now();
    const d = await send(agents[w]!, target, { method: "GET", path: `/v1/inbox?max=${max}`, headers: auth });
    if (timed) drainMs.push(performance.now() - t0);
    if (d.status !== 200) {
      fail(`drain ${d.status}`);
      return -1;
    }
    const ids = (JSON.parse(d.body) as { messages: { directive: { id: string } }[] }).messages.map(
      (m) => m.directive.id,
    );
    if (ids.length === 0) return 0;
    t0 = performance.now();
    const a = await send(agents[w]!, target, {
      method: "POST",
      path: "/v1/inbox/ack",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ ids }),
    });
    if (timed) ackMs.push(performance.now() - t0);
    if (a.status !== 200) {
      fail(`ack ${a.status}`);
      return -1;
    }
    if (timed) drained += ids.length;
    return (JSON.parse(a.body) as { acked: number }).acked;
  };
  await Promise.all(bearers.map((_, w) => step(w, 1, false)));
  const meter = cpuMeter([pid], pgDatabase);
  meter.start();
  const t0 = performance.now();
  const end = t0 + SECONDS * 1000;
  let last = t0;
  await Promise.all(
    bearers.map(async (_, w) => {
      while (performance.now() < end) {
        const acked = await step(w, MAX, true);
        if (acked === 0) break;
        if (acked > 0) directives += acked;
        last = Math.max(last, performance.now());
      }
    }),
  );
  meter.stop();
  for (const a of agents) a.destroy();
  const seconds = (last - t0) / 1000;
  const { cpuMs, pgCpuMs } = meter.read();
  const run: DrainRun = {
    label,
    directives,
    seconds,
    perSecond: directives / seconds,
    drain: drainMs,
    ack: ackMs,
    redelivered: drained - directives,
    failures,
    ...(cpuMs !== undefined && directives ? { cpuPerDirective: cpuMs / directives } : {}),
    ...(pgCpuMs !== undefined && directives ? { pgCpuPerDirective: pgCpuMs / directives } : {}),
  };
  console.log(
    `  ${label}: ${directives} directives acked in ${seconds.toFixed(1)} s = ${run.perSecond.toFixed(0)}/s; ${drainMs.length} drains p50 ${percentile(drainMs, 50).toFixed(1)} ms p99 ${percentile(drainMs, 99).toFixed(1)} ms; ack p50 ${percentile(ackMs, 50).toFixed(1)} ms p99 ${percentile(ackMs, 99).toFixed(1)} ms; CPU/directive web ${run.cpuPerDirective?.toFixed(3)} ms + PostgreSQL ${run.pgCpuPerDirective?.toFixed(3)} ms; ${run.redelivered} drained but not acked; failures ${JSON.stringify(failures)} (load ${load()})`,
  );
  return run;
}

interface WakeRun {
  label: string;
  parked: number;
  parkCpuPerWaiter: number;
  latency: number[];
  answered: number;
  rate: number;
  wakeCpuPerWaiter: number;
  errors: number;
}

/**
 * Parks one long-poll per waiter (its own connection, PARK_BATCH per 100 ms), waits for the web to
 * be idle, then fires `trigger(i)` for each at WAKE_RATE and times each answer from its trigger's
 * return (the commit).
 */
async function wake(
  label: string,
  web: { pid: number; target: Target },
  waiters: { path: string; key: string }[],
  again: (status: number, body: string) => boolean,
  trigger: (i: number) => Promise<unknown>,
): Promise<WakeRun> {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  let parked = 0;
  const parkMeter = cpuMeter([web.pid]);
  parkMeter.start();
  const polls = waiters.map((_w, i) => ({ i, promise: null as unknown as ReturnType<typeof longPoll> }));
  for (let i = 0; i < waiters.length; i += PARK_BATCH) {
    for (const p of polls.slice(i, i + PARK_BATCH))
      p.promise = longPoll(web.target, waiters[p.i]!.path, waiters[p.i]!.key, agent, again, () => parked++);
    await sleep(100);
  }
  if (!(await untilIdle(web.pid))) console.log("  web still busy 150 s after parking began; measuring now");
  const parkCpu = parkMeter.read().cpuMs ?? 0;
  const committed: number[] = [];
  const wakeMeter = cpuMeter([web.pid]);
  wakeMeter.start();
  const start = performance.now();
  const inFlight = new Set<Promise<unknown>>();
  for (let i = 0; i < waiters.length; i++) {
    const wait = start + (i / WAKE_RATE) * 1000 - performance.now();
    if (wait > 0) await sleep(wait);
    while (inFlight.size >= TRIGGERS_IN_FLIGHT) await Promise.race(inFlight);
    const t = trigger(i).then(() => {
      committed[i] = performance.now();
      inFlight.delete(t);
    });
    inFlight.add(t);
  }
  await Promise.all(inFlight);
  const rate = waiters.length / ((performance.now() - start) / 1000);
  const results = await Promise.race([Promise.all(polls.map((p) => p.promise)), sleep(70_000).then(() => null)]);
  const wakeCpu = wakeMeter.read().cpuMs ?? 0;
  agent.destroy();
  const done = (results ?? []).map((r, i) => ({ r, i })).filter(({ r }) => r.status === 200);
  const latency = done.map(({ r, i }) => r.answeredAt - committed[i]!);
  const run: WakeRun = {
    label,
    parked,
    parkCpuPerWaiter: parkCpu / waiters.length,
    latency,
    answered: done.length,
    rate,
    wakeCpuPerWaiter: wakeCpu / waiters.length,
    errors: (results ?? []).reduce((n, r) => n + r.errors, 0),
  };
  console.log(
    `  ${label}: ${parked} parked (web CPU ${run.parkCpuPerWaiter.toFixed(2)} ms each); triggered at ${rate.toFixed(0)}/s; answered ${done.length}/${waiters.length}; wake p50 ${percentile(latency, 50).toFixed(1)} ms p99 ${percentile(latency, 99).toFixed(1)} ms max ${Math.max(...latency).toFixed(1)} ms; web CPU ${run.wakeCpuPerWaiter.toFixed(2)} ms per wake; ${run.errors} connection errors (load ${load()})`,
  );
  return run;
}

async function author(
  label: string,
  target: Target,
  pid: number,
  path: string,
  okStatus: number,
  bearer: string,
  agentIds: string[],
): Promise<Summary> {
  const s = summarize(
    await drive({
      targets: [target],
      concurrency: AGENTS,
      seconds: SECONDS,
      okStatus,
      cpuPids: [pid],
      pgDatabase,
      request: (w, seq) => ({
        method: "POST",
        path,
        headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
        body: JSON.stringify({
          to: `agent:${agentIds[w % agentIds.length]}`,
          title: `Directive ${seq}`,
          body: "Pause the rollout of service-42 until the on-call confirms the canary.",
          priority: "high",
        }),
      }),
    }),
  );
  console.log(
    `  ${label}: ${s.rps.toFixed(0)} req/s p50 ${s.p50.toFixed(1)} ms p99 ${s.p99.toFixed(1)} ms; CPU/req web ${s.cpuPerReq?.toFixed(2)} ms + PostgreSQL ${s.pgCpuPerReq?.toFixed(2)} ms; statuses ${JSON.stringify(s.statuses)} (load ${load()})`,
  );
  return s;
}

async function main(): Promise<void> {
  console.log(
    `bench:mailbox — ${machine()}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  console.log(
    `${DIRECTIVES} directives over ${AGENTS} agents, drain max=${MAX}; ${WAKE_AGENTS} wake agents at ${WAKE_RATE}/s; ${SECONDS} s phases; logs in ${logDir()}`,
  );
  Object.assign(process.env, { MA2H_INBOUND_MAILBOX_DEPTH: RAISED.MA2H_INBOUND_MAILBOX_DEPTH });
  const database = await createTestDatabase();
  pgDatabase = new URL(database.url).pathname.slice(1);
  await useDatabase(database.url);
  try {
    const drainIds = Array.from({ length: AGENTS }, (_, i) => `mbox/agent-${i}`);
    const { keys, tokens } = await provisionAccount("bench", drainIds, [{ handle: "ops", role: "owner" }]);
    const pat = tokens.ops!;
    const { id: userId } = await db().user.findUniqueOrThrow({
      where: { email: "ops@bench.test" },
      select: { id: true },
    });
    const wakeIds = Array.from({ length: WAKE_AGENTS }, (_, i) => `wake/agent-${i}`);
    const wakeKeys: string[] = [];
    const t0 = Date.now();
    for (let i = 0; i < wakeIds.length; i += 16) {
      const made = await Promise.all(wakeIds.slice(i, i + 16).map((id) => createAgent(id, "bench")));
      wakeKeys.push(...made.map((m) => m.api_key));
    }
    console.log(`provisioned ${AGENTS} + ${WAKE_AGENTS} agents in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const rows = await db().agent.findMany({
      where: { agentId: { in: drainIds } },
      select: { id: true, agentId: true },
    });
    const rowIds = drainIds.map((a) => rows.find((r) => r.agentId === a)!.id);
    const templateIds: string[] = [];
    for (const a of drainIds) {
      templateIds.push(
        (
          await authorDirective(
            { userId },
            {
              to: `agent:${a}`,
              title: "Hold the deploy",
              body: "Pause the rollout of service-42 until the on-call confirms the canary.",
              priority: "high",
              tags: ["ops"],
            },
          )
        ).id,
      );
    }
    const perAgent = Math.ceil(DIRECTIVES / AGENTS) + 1; // + the one each agent's warm-up drains

    console.log(`\nbaseline (bare node:http + pg, same database)`);
    const baseline = await startBaseline(database.url, "mailbox-baseline.log");
    await seed(templateIds, perAgent);
    const drainBase = await drainAll("drain+ack", baseline.target, baseline.pid, rowIds);
    const authorBase = await author(
      "author (1 INSERT)",
      baseline.target,
      baseline.pid,
      "/v1/messages",
      202,
      "-",
      drainIds,
    );
    baseline.stop();

    console.log(`\nHub web (built, PostgreSQL only, access log at info)`);
    const web = await startWeb(database.url, RAISED, join(logDir(), "mailbox-web.log"));
    const hub = { pid: web.pid, target: { host: "127.0.0.1", port: web.port } };
    await seed(templateIds, perAgent);
    const drainHub = await drainAll(
      "drain+ack",
      hub.target,
      hub.pid,
      drainIds.map((a) => keys[a]!),
    );
    const authorHub = await author("POST /v1/directives", hub.target, hub.pid, "/v1/directives", 201, pat, drainIds);

    const emptyDrain = (status: number, body: string) =>
      status === 200 && (JSON.parse(body) as { messages: unknown[] }).messages.length === 0;
    const wakeMailbox = await wake(
      "wake: GET /v1/inbox?wait=60",
      hub,
      wakeKeys.map((key) => ({ key, path: `/v1/inbox?wait=60&max=${MAX}` })),
      emptyDrain,
      (i) => authorDirective({ userId }, { to: `agent:${wakeIds[i]}`, title: `Wake ${i}` }),
    );
    const askIds: string[] = [];
    for (let i = 0; i < wakeIds.length; i += 16) {
      const batch = wakeIds.slice(i, i + 16).map(async (id, j) => {
        const principal = requireAgent(await authenticate(new Headers({ authorization: `Bearer ${wakeKeys[i + j]}` })));
        return (
          await submitMessage(principal, JSON.parse(benchEnvelope("ask", id, i + j, "wake")) as Record<string, unknown>)
        ).ack.id;
      });
      askIds.push(...(await Promise.all(batch)));
    }
    const wakeMessages = await wake(
      "wake: GET /v1/messages/{id}?wait=60",
      hub,
      askIds.map((id, i) => ({ key: wakeKeys[i]!, path: `/v1/messages/${id}?wait=60` })),
      (status, body) => status === 200 && (JSON.parse(body) as { status: string }).status === "open",
      (i) => resolveMessage({ kind: "human", userId }, askIds[i]!, { resolution: "answered", value: "ship" }),
    );
    await web.stop();

    const ms = (v: number) => `${v.toFixed(1)} ms`;
    const row = (cells: string[]) => console.log(`| ${cells.join(" | ")} |`);
    console.log(
      `\nload average after: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}\n`,
    );
    row([
      "drain+ack (64 agents, max=32)",
      "directives/s",
      "drain p50",
      "drain p99",
      "ack p50",
      "ack p99",
      "web CPU/directive",
      "PG CPU/directive",
    ]);
    row(["---", "---", "---", "---", "---", "---", "---", "---"]);
    for (const r of [drainBase, drainHub]) {
      row([
        r === drainBase ? "baseline (UPDATE … SKIP LOCKED + UPDATE)" : "Hub",
        r.perSecond.toFixed(0),
        ms(percentile(r.drain, 50)),
        ms(percentile(r.drain, 99)),
        ms(percentile(r.ack, 50)),
        ms(percentile(r.ack, 99)),
        `${r.cpuPerDirective?.toFixed(3)} ms`,
        `${r.pgCpuPerDirective?.toFixed(3)} ms`,
      ]);
    }
    console.log(
      `ratio Hub/baseline: throughput ${(drainHub.perSecond / drainBase.perSecond).toFixed(2)}×, drain p50 ×${(percentile(drainHub.drain, 50) / percentile(drainBase.drain, 50)).toFixed(1)}, p99 ×${(percentile(drainHub.drain, 99) / percentile(drainBase.drain, 99)).toFixed(1)}, web CPU per directive ×${((drainHub.cpuPerDirective ?? NaN) / (drainBase.cpuPerDirective ?? NaN)).toFixed(1)}\n`,
    );
    row([
      `wake (${WAKE_AGENTS} parked)`,
      "answered",
      "p50",
      "p99",
      "max",
      "web CPU/park",
      "web CPU/wake",
      "triggered at",
    ]);
    row(["---", "---", "---", "---", "---", "---", "---", "---"]);
    for (const r of [wakeMailbox, wakeMessages]) {
      row([
        r.label.replace("wake: ", ""),
        `${r.answered}/${WAKE_AGENTS}`,
        ms(percentile(r.latency, 50)),
        ms(percentile(r.latency, 99)),
        ms(Math.max(...r.latency)),
        ms(r.parkCpuPerWaiter),
        ms(r.wakeCpuPerWaiter),
        `${r.rate.toFixed(0)}/s`,
      ]);
    }
    console.log("");
    row(["author (64 connections)", "req/s", "p50", "p99", "web CPU/req", "PG CPU/req"]);
    row(["---", "---", "---", "---", "---", "---"]);
    for (const [name, s] of [
      ["baseline (1 INSERT)", authorBase],
      ["Hub POST /v1/directives", authorHub],
    ] as const) {
      row([
        name,
        s.rps.toFixed(0),
        ms(s.p50),
        ms(s.p99),
        `${s.cpuPerReq?.toFixed(2)} ms`,
        `${s.pgCpuPerReq?.toFixed(2)} ms`,
      ]);
    }
    console.log(
      `ratio Hub/baseline: throughput ${(authorHub.rps / authorBase.rps).toFixed(3)}×, p50 ×${(authorHub.p50 / authorBase.p50).toFixed(1)}, p99 ×${(authorHub.p99 / authorBase.p99).toFixed(1)}`,
    );
  } finally {
    await releaseDatabase();
    await database.drop();
  }
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

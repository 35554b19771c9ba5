/**
 * `npm run bench:longpoll`: long-poll capacity of one web process. Seeds BENCH_WAITERS (default
 * 10 000) open asks, parks one `GET /v1/messages/{id}?wait=60` per ask on the web — each on its own
 * connection, as that many separate agents would — and prints the web's RSS (from /proc) before and
 * while they are parked. Then resolves every message at BENCH_RESOLVE_RATE per second (default 250)
 * and prints the wake-up latency: from the commit of its resolution to the parked request's answer.
 *
 * The asks are inserted and resolved with SQL from this script, not through the Hub's submit and
 * resolve routes: this measures the web's waiting and waking, not submit or resolve (bench:submit
 * does those), and keeps the run bounded on a small machine. A resolution here commits exactly what
 * lib/messages/lifecycle.ts commits — the guarded status UPDATE, the resolution row, the audit event
 * and `NOTIFY ma2h_message_terminal` — in batches of 25 per transaction. A waiter whose 60 s run out
 * before its resolution re-polls, as a real client does; those are counted. The open-file limit is
 * raised in a child shell if the soft limit is too low for the sockets. Needs `npm run build` first.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { Redis } from "ioredis";
import pg from "pg";
import { messageResolved } from "../lib/audit/events";
import { mintId } from "@ma2h/protocol/ids";
import { TERMINAL_CHANNEL } from "../lib/pubsub/channels";
import { createTestDatabase } from "../test/support/database";
import { provisionAccount, releaseDatabase, useDatabase } from "../test/support/provision";
import { benchEnvelope, cpuTicks, logDir, machine, percentile, rssMiB, send, sleep, startWeb } from "./bench/lib";

const REQUESTED = Number(process.env.BENCH_WAITERS ?? 10_000);
const RESOLVE_RATE = Number(process.env.BENCH_RESOLVE_RATE ?? 250);
const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379/12";
const AGENTS = 10;
/** New connections per 100 ms while parking (BENCH_PARK_RATE per second, default 500). */
const PARK_BATCH = Math.max(1, Math.round(Number(process.env.BENCH_PARK_RATE ?? 500) / 10));

function openFileLimits(): { soft: number; hard: number } {
  const line =
    readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((l) => l.startsWith("Max open files")) ?? "";
  const [soft, hard] = line
    .replace("Max open files", "")
    .trim()
    .split(/\s+/)
    .map((v) => (v === "unlimited" ? Infinity : Number(v)));
  return { soft: soft ?? 1024, hard: hard ?? 1024 };
}

/** Each side (this process and the web) holds one socket per waiter, plus a margin. */
function ensureFileLimit(): number {
  const need = REQUESTED + 2000;
  const { soft, hard } = openFileLimits();
  if (soft >= need) return REQUESTED;
  if (!process.env.BENCH_LIMIT_RAISED && hard > soft) {
    const target = Number.isFinite(hard) ? hard : need;
    console.log(`raising the open-file limit from ${soft} to ${target} in a child shell`);
    const r = spawnSync(
      "bash",
      ["-c", `ulimit -n ${target} && exec "$0" "$@"`, process.execPath, ...process.execArgv, ...process.argv.slice(1)],
      {
        stdio: "inherit",
        env: { ...process.env, BENCH_LIMIT_RAISED: "1" },
      },
    );
    process.exit(r.status ?? 1);
  }
  const fits = Math.max(1000, Math.floor((soft - 2000) / 1000) * 1000);
  console.log(`open-file limit ${soft} (hard ${hard}) cannot hold ${REQUESTED} waiters; measuring ${fits} instead`);
  return fits;
}

let connectionErrors = 0;
const errorCodes: Record<string, number> = {};

interface Waiter {
  id: string;
  key: string;
  polls: number;
  answeredAt: number;
  status: string;
  committedAt: number;
}

/** What lib/messages/lifecycle.ts commits for a resolve, for a batch of open asks, in one statement. */
async function resolveBatch(sql: pg.Client, batch: Waiter[]): Promise<void> {
  const now = new Date();
  const response = JSON.stringify({ value: "ship", edited: false, actor: "human:ops", resolved_at: now.toISOString() });
  await sql.query(
    `WITH u AS (
       UPDATE messages SET status = 'answered', status_changed_at = $3, terminal_at = $3
       WHERE id = ANY($1::text[]) AND status = 'open' RETURNING id, account_id),
     r AS (
       INSERT INTO resolutions (id, message_id, resolution, actor, defaulted, response, resolved_at)
       SELECT ids.res_id, u.id, 'answered', 'human:ops', false, $4, $3
       FROM u JOIN unnest($1::text[], $2::text[]) AS ids(msg_id, res_id) ON ids.msg_id = u.id
       RETURNING message_id),
     a AS (
       INSERT INTO audit_events (account_id, message_id, actor, event, detail, at)
       SELECT u.account_id, u.id, 'human:ops', '${messageResolved("answered")}', '{"via":"resolve"}'::jsonb, $3 FROM u)
     SELECT count(pg_notify('${TERMINAL_CHANNEL}', r.message_id)) FROM r`,
    [batch.map((w) => w.id), batch.map(() => mintId("resolution")), now, response],
  );
}

/** Long-polls until the message is terminal, re-polling when a 60 s wait runs out (as clients do). */
function waitFor(
  target: { host: string; port: number },
  w: Waiter,
  agent: http.Agent,
  onFirstParked: () => void,
): Promise<void> {
  return new Promise((done) => {
    const poll = () => {
      w.polls++;
      const req = http.request(
        {
          host: target.host,
          port: target.port,
          path: `/v1/messages/${w.id}?wait=60`,
          headers: { authorization: `Bearer ${w.key}` },
          agent,
        },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (d: string) => (body += d));
          res.on("end", () => {
            const status = res.statusCode === 200 ? (JSON.parse(body).status as string) : `http_${res.statusCode}`;
            if (status === "open") return poll();
            w.answeredAt = performance.now();
            w.status = status;
            done();
          });
        },
      );
      // A connection the kernel dropped under a full accept queue never answers: give up and retry.
      req.setTimeout(75_000, () => req.destroy(Object.assign(new Error("client timeout"), { code: "CLIENT_TIMEOUT" })));
      req.on("error", (err: NodeJS.ErrnoException) => {
        connectionErrors++;
        errorCodes[err.code ?? err.message] = (errorCodes[err.code ?? err.message] ?? 0) + 1;
        setTimeout(poll, 100);
      });
      req.end();
      if (w.polls === 1) req.on("socket", (s) => s.once("connect", onFirstParked));
    };
    poll();
  });
}

async function main(): Promise<void> {
  const N = ensureFileLimit();
  console.log(`bench:longpoll — ${machine()}`);
  console.log(`${N} waiters (?wait=60) on one web process, resolved at ${RESOLVE_RATE}/s; logs in ${logDir()}`);
  const database = await createTestDatabase();
  await useDatabase(database.url);
  const agentIds = Array.from({ length: AGENTS }, (_, i) => `poll/agent-${i}`);
  const { keys } = await provisionAccount("bench", agentIds);
  const redis = new Redis(REDIS_URL);
  await redis.flushdb();
  // The held-request caps (lib/limits/parked.ts) raised past the bench's 10 agents of one account:
  // this measures one web's waiting and waking, not the caps (test/parked-caps.test.ts does).
  const env = {
    REDIS_URL,
    MA2H_RATE_LIMIT_PER_MINUTE: "1000000000",
    MA2H_INBOX_DEPTH: "1000000000",
    MA2H_MAX_PARKED_PER_AGENT: String(REQUESTED),
    MA2H_MAX_PARKED_PER_ACCOUNT_PERCENT: "100",
  };
  const webA = await startWeb(database.url, env, join(logDir(), "longpoll-web.log"));
  const A = { host: "127.0.0.1", port: webA.port };
  const sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
  try {
    // The asks, inserted directly (one statement), spread over the agents.
    const t0 = Date.now();
    const agentRows = (await sql.query("SELECT id, agent_id, account_id FROM agents ORDER BY agent_id")).rows as {
      id: string;
      agent_id: string;
      account_id: string;
    }[];
    const waiters: Waiter[] = [];
    const cols: { id: string[]; account: string[]; agent: string[]; envelope: string[] } = {
      id: [],
      account: [],
      agent: [],
      envelope: [],
    };
    for (let i = 0; i < N; i++) {
      const a = agentRows[i % agentRows.length]!;
      const id = mintId("message");
      cols.id.push(id);
      cols.account.push(a.account_id);
      cols.agent.push(a.id);
      cols.envelope.push(benchEnvelope("ask", a.agent_id, i, "poll"));
      waiters.push({ id, key: keys[a.agent_id]!, polls: 0, answeredAt: 0, status: "", committedAt: 0 });
    }
    await sql.query(
      `INSERT INTO messages (id, account_id, agent_row_id, type, status, ma2h_version, envelope, title, created_at, status_changed_at)
       SELECT id, account, agent, 'ask', 'open', '0.5', envelope, 'long-poll bench', now(), now()
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS t(id, account, agent, envelope)`,
      [cols.id, cols.account, cols.agent, cols.envelope],
    );
    console.log(`seeded ${waiters.length} open asks in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    // Warm A's routes up with a few short polls, then take its idle RSS.
    const warm = new http.Agent({ keepAlive: false });
    for (const w of waiters.slice(0, 20))
      await send(warm, A, {
        method: "GET",
        path: `/v1/messages/${w.id}`,
        headers: { authorization: `Bearer ${w.key}` },
      });
    await sleep(2000);
    const rssIdle = rssMiB(webA.pid);
    console.log(`web RSS idle (after warm-up): ${rssIdle.toFixed(0)} MiB`);

    // Park them all: one connection each, opened at BENCH_PARK_RATE so the listen backlog keeps up.
    const parkAgent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
    let connected = 0;
    const parkStart = Date.now();
    const parkTicks0 = cpuTicks(webA.pid);
    const finished: Promise<void>[] = [];
    for (let i = 0; i < waiters.length; i += PARK_BATCH) {
      for (const w of waiters.slice(i, i + PARK_BATCH)) finished.push(waitFor(A, w, parkAgent, () => connected++));
      await sleep(100);
    }
    // Parked = all connected and the web idle (under 5 % of a core for 2 s: every request is
    // registered and waiting).
    let idleSince = 0;
    let ticks = cpuTicks(webA.pid);
    for (;;) {
      await sleep(500);
      const now = cpuTicks(webA.pid);
      if (now - ticks > 2) idleSince = 0;
      else idleSince ||= Date.now();
      ticks = now;
      if (connected >= waiters.length && idleSince && Date.now() - idleSince >= 2000) break;
      if (Date.now() - parkStart > 150_000) {
        console.log("web still busy 150 s after parking began; measuring now");
        break;
      }
    }
    const answeredEarly = waiters.filter((w) => w.answeredAt > 0).length;
    const rssParked = rssMiB(webA.pid);
    const parkCpuMs = (cpuTicks(webA.pid) - parkTicks0) * 10;
    const parkSeconds = (Date.now() - parkStart - 2000) / 1000;
    console.log(
      `parked ${connected} connections in ~${parkSeconds.toFixed(1)} s (${answeredEarly} answered before any resolve); web CPU ${(parkCpuMs / connected).toFixed(2)} ms per parked request`,
    );
    console.log(
      `web RSS while ${connected} long-polls are parked: ${rssParked.toFixed(0)} MiB (+${(rssParked - rssIdle).toFixed(0)} MiB, ≈ ${(((rssParked - rssIdle) * 1024) / connected).toFixed(1)} KiB per waiter)`,
    );

    // Resolve them all at RESOLVE_RATE per second, in batches of 25 per transaction; each waiter's
    // answer is timed against the commit of its batch.
    const BATCH = 25;
    const wakeTicks0 = cpuTicks(webA.pid);
    const resolveStart = performance.now();
    for (let i = 0; i < waiters.length; i += BATCH) {
      const due = resolveStart + (i / RESOLVE_RATE) * 1000;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const batch = waiters.slice(i, i + BATCH);
      await resolveBatch(sql, batch);
      const committed = performance.now();
      for (const w of batch) w.committedAt = committed;
    }
    const resolveSeconds = (performance.now() - resolveStart) / 1000;
    await Promise.race([Promise.all(finished), sleep(70_000)]);
    const lastAnswer = Math.max(...waiters.map((w) => w.answeredAt));
    const wakeCpuMs = (cpuTicks(webA.pid) - wakeTicks0) * 10;
    parkAgent.destroy();

    const done = waiters.filter((w) => w.answeredAt > 0);
    const wrong = done.filter((w) => w.status !== "answered").length;
    const outcomes: Record<string, number> = {};
    for (const w of waiters) outcomes[w.status || "unanswered"] = (outcomes[w.status || "unanswered"] ?? 0) + 1;
    const polls = waiters.reduce((n, w) => n + w.polls, 0);
    const repolled = waiters.filter((w) => w.polls > 1).length;
    const latency = done.map((w) => w.answeredAt - w.committedAt);
    console.log(
      `resolved ${waiters.length} in ${resolveSeconds.toFixed(1)} s (${(waiters.length / resolveSeconds).toFixed(0)}/s); last answer ${((lastAnswer - resolveStart) / 1000).toFixed(1)} s after the first resolution`,
    );
    console.log(
      `answered ${done.length}/${waiters.length} (${wrong} with a status other than answered; ${repolled} re-polled after a 60 s wait ran out); web CPU ${(wakeCpuMs / waiters.length).toFixed(2)} ms per wake-up`,
    );
    console.log(
      `wake-up latency (resolution committed → waiter answered): p50 ${percentile(latency, 50).toFixed(1)} ms, p99 ${percentile(latency, 99).toFixed(1)} ms, max ${Math.max(...latency).toFixed(1)} ms`,
    );
    console.log(
      `outcomes ${JSON.stringify(outcomes)}; ${polls} polls in all, ${connectionErrors} connection errors (retried) ${JSON.stringify(errorCodes)}`,
    );
    console.log(`web RSS after: ${rssMiB(webA.pid).toFixed(0)} MiB`);
  } finally {
    await sql.end();
    await webA.stop();
    await redis.flushdb().catch(() => {});
    redis.disconnect();
    await releaseDatabase();
    await database.drop();
  }
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

/**
 * Scale-out: two web and two worker processes against one PostgreSQL and one
 * Redis, the layout docs/DEPLOYMENT.md describes. What must stay correct across processes:
 * the §7 CAS (one winner, one resolution row, whichever web each racer hits), §8.1 idempotency
 * (identical submits split over both webs create one message), expiry exactly once per message
 * with both workers' jobs and sweeps competing, and long-poll wake-ups from a commit on the other web.
 */
// covers: lib/messages/lifecycle.ts, lib/messages/submit.ts, lib/messages/waiters.ts, lib/jobs/handlers/expiry.ts, lib/queue/queues.ts
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { client, startHub, type HubProcess } from "./support/hub";
import { envelope, provisionAccount, type Provisioned } from "./support/provision";
import { useTestDatabase } from "./support/test-database";
import { staysFalse, waitFor, waitUntil } from "./support/wait";

/** A Redis database of this file's own, flushed before and after. */
const REDIS_URL = "redis://127.0.0.1:6379/9";

const database = useTestDatabase();
let webs: HubProcess[] = [];
let workers: HubProcess[] = [];
let acme: Provisioned;
const A = "deploybot/dev-team";
const B = "overseer/fleet";
const C = "expirer/batch";

async function flushRedis(): Promise<void> {
  const r = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  await r.flushdb();
  await r.quit();
}

/** Waits for a worker's "worker running" line (it has no HTTP endpoint), or its early exit. */
async function workerRunning(w: HubProcess, timeoutMs = 60_000): Promise<void> {
  await waitFor(() => w.output().includes("worker running") || w.child.exitCode !== null, {
    timeout: timeoutMs,
    what: `the worker's "worker running" line`,
  }).catch((err: Error) => {
    throw new Error(`${err.message}:\n${w.output()}`);
  });
  if (w.child.exitCode !== null) throw new Error(`worker exited early:\n${w.output()}`);
}

/**
 * How many requests of A the webs hold parked: the shared held-request store in Redis
 * (lib/limits/redis-store.ts), a hash per agent with a count per web process. A long-poll takes its
 * slot after registering its waiter and finding the message open, so from then on only a wake ends it.
 */
async function parkedOfA(): Promise<number> {
  const row = await db().agent.findFirstOrThrow({ where: { agentId: A } });
  const r = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    return (await r.hvals(`ma2h:held:agent:${row.id}`)).reduce((n, v) => n + Number(v), 0);
  } finally {
    r.disconnect();
  }
}
const parked = (n: number) =>
  waitUntil(parkedOfA, (got) => got === n, { what: `${n} parked request(s) of ${A} in the store` });

beforeAll(async () => {
  await flushRedis();
  acme = await provisionAccount("acme", [A, B, C], [{ handle: "alice", role: "owner" }]);
  // Both workers sweep every 250 ms on top of the per-message delayed jobs, so every overdue
  // message is contended by two sweeps and a job at once.
  const env = { REDIS_URL, MA2H_EXPIRY_SWEEP_MS: "250" };
  [webs, workers] = await Promise.all([
    Promise.all([startHub({ databaseUrl: database.url, env }), startHub({ databaseUrl: database.url, env })]),
    Promise.all([
      startHub({ databaseUrl: database.url, mode: "worker", env }),
      startHub({ databaseUrl: database.url, mode: "worker", env }),
    ]),
  ]);
  await Promise.all(workers.map((w) => workerRunning(w)));
});

afterAll(async () => {
  await Promise.all([...webs, ...workers].map((h) => h.stop()));
  await flushRedis().catch(() => {});
});

const web = (i: number) => webs[i % 2] as HubProcess;
const agent = (i: number, id = A) => client(web(i).url, acme.keys[id]);
const human = (i: number) => client(web(i).url, acme.tokens.alice);

async function submitAsk(over: Record<string, unknown> = {}, id = A, via = 0): Promise<string> {
  const res = await agent(via, id).post("/v1/messages", envelope("ask", id, over));
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.id as string;
}

async function terminalRows(messageId: string) {
  const [resolutions, events] = await Promise.all([
    db().resolution.count({ where: { messageId } }),
    db().auditEvent.findMany({ where: { messageId, event: { not: "message.submitted" } }, select: { event: true } }),
  ]);
  return { resolutions, events: events.map((e) => e.event) };
}

describe("two webs + two workers on one PostgreSQL and one Redis", () => {
  it("runs four distinct processes, all on the Redis queue backend", () => {
    const pids = new Set([...webs, ...workers].map((h) => h.child.pid));
    expect(pids.size).toBe(4);
    for (const w of workers) expect(w.output()).toContain('"queue_backend":"redis"');
  });

  it("CAS: 24 racing resolves (and cancels) split over both webs → one winner, one resolution row (×10)", async () => {
    for (let round = 0; round < 10; round++) {
      const withCancels = round >= 5;
      const id = await submitAsk({}, A, round);
      const path = `/v1/messages/${id}`;
      const kinds = Array.from({ length: 24 }, (_, i) =>
        withCancels && i % 3 === 0 ? "cancel" : i % 2 ? "agent" : "human",
      );
      const results = await Promise.all(
        kinds.map((kind, i) =>
          kind === "cancel"
            ? agent(i).post(`${path}/cancel`)
            : kind === "agent"
              ? agent(i).post(`${path}/resolve`, { resolution: "answered", value: i % 4 === 1 ? "ship" : "hold" })
              : human(i).post(`${path}/resolve`, { resolution: "declined" }),
        ),
      );
      const statuses = results.map((r, i) => `${kinds[i]}:${r.status}`).join(",");
      expect(
        results.every((r) => r.status === 200 || r.status === 409),
        statuses,
      ).toBe(true);
      const row = await db().message.findUniqueOrThrow({ where: { id }, include: { resolution: true } });
      const rows = await terminalRows(id);
      expect(rows.resolutions).toBe(1);
      expect(rows.events).toEqual([`message.${row.status}`]);
      if (row.status === "cancelled") {
        // Cancel is idempotent (§8.4): every cancel answers 200, every resolve loses with 409.
        for (const [i, k] of kinds.entries()) expect(results[i]!.status, statuses).toBe(k === "cancel" ? 200 : 409);
      } else {
        expect(
          results.filter((r) => r.status === 200),
          statuses,
        ).toHaveLength(1);
        const winner = results.find((r) => r.status === 200)!;
        expect(winner.body.status).toBe(row.status);
      }
      // Every loser's 409 names the state that won.
      for (const r of results.filter((x) => x.status === 409)) expect(r.body.status).toBe(row.status);
      // Both webs read the same answer.
      const [a, b] = await Promise.all([agent(0).get(path), agent(1).get(path)]);
      expect(a.body.response.resolution_id).toBe(row.resolution!.id);
      expect(b.body.response.resolution_id).toBe(row.resolution!.id);
    }
  });

  it("idempotency: 20 identical submits split over both webs → one message, every ack the same id", async () => {
    for (const type of ["ask", "notify"] as const) {
      const body = envelope(type, A, { idempotency_key: `scale-${type}-${Date.now()}` });
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          // run_id differs per attempt: a retry from a new run is still the same submit (§8.1).
          agent(i).post("/v1/messages", { ...body, agent: { ...(body.agent as object), run_id: `run_retry_${i}` } }),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(Array(20).fill(202));
      const ids = new Set(results.map((r) => r.body.id as string));
      expect(ids.size).toBe(1);
      const [id] = [...ids];
      expect(await db().message.count({ where: { idempotencyKey: body.idempotency_key as string } })).toBe(1);
      expect(await db().idempotencyRecord.count({ where: { messageId: id } })).toBe(1);
      expect(await db().auditEvent.count({ where: { messageId: id, event: "message.submitted" } })).toBe(1);
    }
  });

  it("expiry exactly once: 20 asks expiring ~2 s ahead, no traffic → each expired once", async () => {
    // Submitted together, each expiring ~2 s after it is sent (a busy box may need a second try).
    const submitExpiring = async (i: number): Promise<string> => {
      for (let attempt = 0; ; attempt++) {
        const res = await agent(i, C).post(
          "/v1/messages",
          envelope("ask", C, { expires_at: new Date(Date.now() + 2000).toISOString() }),
        );
        if (res.status === 202) return res.body.id as string;
        expect([res.status, attempt], JSON.stringify(res.body)).toEqual([422, 0]);
      }
    };
    const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => submitExpiring(i)));
    // Nobody reads them: only the workers' delayed jobs and sweeps can expire them.
    await waitUntil(
      () => db().message.count({ where: { id: { in: ids }, status: "open" } }),
      (open) => open === 0,
      { timeout: 20_000, what: "all 20 expired (18 s after expires_at)" },
    );
    // Both workers sweep every 250 ms: for 1.5 s (six sweeps each, and any retried jobs) no message
    // gets a second resolution or terminal event.
    await staysFalse(
      async () =>
        (await db().resolution.count({ where: { messageId: { in: ids } } })) > 20 ||
        (await db().auditEvent.count({ where: { messageId: { in: ids }, event: { not: "message.submitted" } } })) > 20,
      1500,
      "a second expiry of one of the 20",
    );
    const rows = await db().message.findMany({ where: { id: { in: ids } }, include: { resolution: true } });
    expect(rows).toHaveLength(20);
    for (const row of rows) {
      expect(row.status).toBe("expired");
      expect(row.resolution?.actor).toBe("system:expiry");
      expect(row.resolution!.resolvedAt.getTime()).toBeGreaterThan(row.expiresAt!.getTime());
    }
    const resolutions = await db().resolution.groupBy({
      by: ["messageId"],
      where: { messageId: { in: ids } },
      _count: true,
    });
    expect(resolutions).toHaveLength(20);
    for (const r of resolutions) expect(r._count).toBe(1);
    const events = await db().auditEvent.groupBy({
      by: ["messageId"],
      where: { messageId: { in: ids }, event: { not: "message.submitted" } },
      _count: true,
    });
    expect(events).toHaveLength(20);
    for (const e of events) expect(e._count).toBe(1);
    expect(await db().auditEvent.count({ where: { messageId: { in: ids }, event: "message.expired" } })).toBe(20);
  });

  it("long-poll: a waiter on web A wakes within 1.5 s of a resolve committed on web B (and vice versa)", async () => {
    for (const [waitOn, resolveOn] of [
      [0, 1],
      [1, 0],
    ] as const) {
      const id = await submitAsk({}, A, waitOn);
      await parked(0); // the previous round's slot is given back
      const waiting = agent(waitOn).get(`/v1/messages/${id}?wait=30`);
      let answered = false;
      void waiting.then(() => (answered = true));
      await parked(1); // parked on the waiter's web
      expect(answered).toBe(false); // it really was parked: nothing answered it before the resolve
      const resolvedAt = Date.now();
      const res = await human(resolveOn).post(`/v1/messages/${id}/resolve`, { resolution: "answered", value: "ship" });
      expect(res.status).toBe(200);
      const got = await waiting;
      const woke = Date.now();
      expect(got.status).toBe(200);
      expect(got.body.status).toBe("answered");
      expect(got.body.response.response.value).toBe("ship");
      expect(woke - resolvedAt, `woke ${woke - resolvedAt} ms after the resolve was sent`).toBeLessThan(1500);
    }
  });

  it("long-poll: 10 waiters spread over both webs on one message all wake on one resolve", async () => {
    const id = await submitAsk();
    await parked(0);
    const waiting = Array.from({ length: 10 }, (_, i) => agent(i).get(`/v1/messages/${id}?wait=30`));
    await parked(10); // all ten held, five on each web
    const t0 = Date.now();
    expect((await agent(1).post(`/v1/messages/${id}/resolve`, { resolution: "answered", value: "hold" })).status).toBe(
      200,
    );
    const got = await Promise.all(waiting);
    expect(Date.now() - t0).toBeLessThan(1500);
    for (const g of got) expect([g.status, g.body.status]).toEqual([200, "answered"]);
  });
});

/**
 * §3.1 durability of push obligations: PostgreSQL rows, not queue jobs, are the truth. A SIGKILLed
 * worker mid-retry, a FLUSHDB of this test's own Redis database (db 7, and only it) mid-run, and
 * obligations that fell due while no worker ran are all delivered on schedule with the same
 * `resolution_id`; two workers racing never send one attempt twice (the lease).
 */
// covers: lib/delivery/push-attempt.ts, lib/jobs/handlers/push.ts, lib/jobs/sweeps.ts, lib/queue/enqueue.ts
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetEnvCache } from "../lib/env";
import { closeProducers } from "../lib/queue/producer";
import { enqueuePush } from "../lib/queue/enqueue";
import { QUEUE } from "../lib/queue/names";
import { makeWorker } from "../lib/queue/queues";
import { addBinding } from "../lib/principals/bindings";
import { AgentVerifier } from "./support/agent-verify";
import { startHub, type HubProcess } from "./support/hub";
import { provisionAccount, type Provisioned } from "./support/provision";
import { useTestDatabase } from "./support/test-database";
import { deliveryOf, resolveAs, startWorker, submitPush, waitForDelivery, type Auth } from "./support/push-kit";
import { startReceiver, type Receiver } from "./support/receiver";
import { staysFalse, waitFor } from "./support/wait";

const REDIS_URL = "redis://127.0.0.1:6379/7"; // this file's own database: FLUSHDB touches nothing else
// Longer than a worker takes to boot on a loaded 2-core box, so the replacement is up before the retry is due.
const BASE_DELAY_MS = 8000;
const SWEEP_MS = 10_000; // the default and the §3.1 ceiling
const database = useTestDatabase();
let web: HubProcess;
const workers: HubProcess[] = [];
const inProcess: Array<() => Promise<void>> = [];
let rx: Receiver;
let acme: Provisioned;
let redis: Redis;
let env: Record<string, string>;
const A = "deploybot/dev-team";
const SECRET = "durable-secret";
const HMAC: Auth = { scheme: "hmac", secret_ref: "cb" };

beforeAll(async () => {
  acme = await provisionAccount("acme", [A], [{ handle: "alice", role: "owner" }]);
  rx = await startReceiver();
  await addBinding({
    agentRef: { agentId: A, accountSlug: "acme" },
    origin: rx.origin,
    secretRef: "cb",
    secret: SECRET,
  });
  redis = new Redis(REDIS_URL);
  await redis.flushdb();
  env = {
    REDIS_URL,
    MA2H_DEV_CALLBACK_ALLOWLIST: rx.origin,
    MA2H_PUSH_BASE_DELAY_MS: String(BASE_DELAY_MS),
    MA2H_DELIVERY_SWEEP_MS: String(SWEEP_MS),
  };
  web = await startHub({ databaseUrl: database.url, mode: "web", env });
});

afterAll(async () => {
  if (process.env.DEBUG_PUSH)
    for (const w of [web, ...workers])
      console.log(
        "OUT",
        w.mode,
        w
          .output()
          .split("\n")
          .filter((l) => !l.includes("request"))
          .join("\n"),
      );
  await Promise.all([web?.stop(), ...workers.map((w) => w.stop())]);
  await rx?.close();
  await redis?.flushdb();
  redis?.disconnect();
});

async function worker(): Promise<HubProcess & { readyAt: number }> {
  const w = await startWorker(database.url, env);
  workers.push(w);
  return w;
}

const push = (path: string) =>
  submitPush(web.url, acme.keys[A] as string, A, `${rx.origin}${path}`, HMAC, { name: path });
const answer = (id: string) =>
  resolveAs(web.url, acme.tokens.alice as string, id, { resolution: "answered", value: "hold" });

/** The obligation after its first attempt failed: pending, unleased, with its next due time. */
async function afterFirstFailure(id: string) {
  return waitForDelivery(id, (d) => d.attempts === 1 && d.leaseUntil === null && d.status === "pending");
}

async function expectDeliveredOnce(path: string, id: string, verifier: AgentVerifier) {
  const d = await waitForDelivery(id, (row) => row.status !== "pending");
  expect(d.status).toBe("delivered");
  const got = rx.at(path);
  const ids = got.map((g) => JSON.parse(g.body).resolution_id);
  expect(new Set(ids)).toEqual(new Set([d.resolutionId]));
  for (const g of got) expect(await verifier.verify(g.headers, g.body, g.at / 1000)).toMatchObject({ ok: true });
  return d;
}

describe("push obligations survive the processes and the queue", () => {
  it("a SIGKILLed worker mid-retry: a new worker delivers the retry on schedule, same resolution_id", async () => {
    const first = await worker();
    rx.script("/d/kill", [503], 200);
    const sent = await push("/d/kill");
    await answer(sent.id);
    const pending = await afterFirstFailure(sent.id);
    const due = pending.nextAttemptAt.getTime();
    expect(due - pending.attemptLog[0]!.at.getTime()).toBeGreaterThanOrEqual(BASE_DELAY_MS * 0.9 - 50);
    await first.stop("SIGKILL");
    expect(Date.now()).toBeLessThan(due); // killed while the retry was still ahead

    const replacement = await worker();
    const [, second] = await rx.waitFor("/d/kill", 2, BASE_DELAY_MS + SWEEP_MS);
    expect(second!.at).toBeGreaterThanOrEqual(due - 250);
    // On schedule: when due (or once the replacement is up, if later). The slack is BullMQ's: a
    // delayed job whose wake-up marker the dead worker had already taken is seen at the new
    // worker's next idle poll (drainDelay, 5 s), still well before the next sweep could matter.
    expect(second!.at).toBeLessThan(Math.max(due, replacement.readyAt) + 6000);
    const d = await expectDeliveredOnce(
      "/d/kill",
      sent.id,
      new AgentVerifier({ callbackUrl: sent.url, hmacSecrets: [SECRET] }),
    );
    expect(d.attempts).toBe(2);
  });

  it("a FLUSHDB of the queue's Redis database mid-retry: the sweep re-derives the job and delivers it", async () => {
    rx.script("/d/flush", [503], 200);
    const sent = await push("/d/flush");
    await answer(sent.id);
    const pending = await afterFirstFailure(sent.id);
    const due = pending.nextAttemptAt.getTime();
    expect((await redis.keys("*:delivery-push:*")).length).toBeGreaterThan(0); // the delayed retry job
    // Flushed and counted in one MULTI: the running worker writes its own bookkeeping keys (BullMQ's
    // meta and wake-up markers) again at once, so a count after the flush may already see them.
    const flushed = await redis.multi().flushdb().dbsize().exec();
    expect(flushed?.[1]).toEqual([null, 0]);
    expect(Date.now()).toBeLessThan(due);

    const [, second] = await rx.waitFor("/d/flush", 2, BASE_DELAY_MS + SWEEP_MS + 5000);
    expect(second!.at).toBeGreaterThanOrEqual(due - 250);
    expect(second!.at).toBeLessThan(due + SWEEP_MS + 1000); // at the latest one sweep period late
    const d = await expectDeliveredOnce(
      "/d/flush",
      sent.id,
      new AgentVerifier({ callbackUrl: sent.url, hmacSecrets: [SECRET] }),
    );
    expect(d.attempts).toBe(2);
  });

  it("obligations that fell due while no worker ran are attempted within 10 s of the worker's start", async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    const sent = [];
    for (let i = 0; i < 3; i++) sent.push(await push(`/d/offline-${i}`));
    for (const s of sent) await answer(s.id);
    await redis.flushdb(); // whatever the web process queued is gone too: only PostgreSQL remembers
    // With no worker running nothing sends them: a window in which no push may arrive.
    await staysFalse(
      () => rx.requests.some((r) => r.path.startsWith("/d/offline-")),
      1000,
      "a push with no worker running",
    );
    expect(rx.requests.filter((r) => r.path.startsWith("/d/offline-"))).toHaveLength(0);
    for (const s of sent) expect((await deliveryOf(s.id)).status).toBe("pending");

    // Measured from the worker's readiness: how long tsx takes to boot it is not the Hub's schedule.
    const w = await worker();
    for (let i = 0; i < 3; i++) {
      const [got] = await rx.waitFor(`/d/offline-${i}`, 1, 15_000);
      expect(got!.at - w.readyAt).toBeLessThan(10_000);
      await expectDeliveredOnce(
        `/d/offline-${i}`,
        sent[i]!.id,
        new AgentVerifier({ callbackUrl: sent[i]!.url, hmacSecrets: [SECRET] }),
      );
    }
  });

  it("a push job that threw does not keep its id: the sweep's re-enqueue of the attempt runs", async () => {
    // An attempt that throws (a database hiccup, an unreadable secret) leaves its row pending with
    // the lease running out; the sweep then re-enqueues the same job id (push-<row>-<attempt>). A
    // failed job kept under that id made BullMQ ignore the re-enqueue, so the push never went out.
    process.env.REDIS_URL = REDIS_URL;
    process.env.MA2H_QUEUE_PREFIX = `ma2h-failtest-${Date.now()}`;
    resetEnvCache();
    const calls: string[] = [];
    const failed = new Promise<void>((ok) => {
      const w = makeWorker(QUEUE.push, async (job) => {
        calls.push(job.id as string);
        if (calls.length === 1) {
          setTimeout(ok, 200);
          throw new Error("attempt blew up");
        }
      });
      inProcess.push(w.close);
    });
    try {
      await enqueuePush("dlv_failtest", new Date(), 1);
      await failed;
      await enqueuePush("dlv_failtest", new Date(), 1); // what the sweep does after the lease
      await waitFor(() => calls.length >= 2, { timeout: 5000, what: "the re-enqueued attempt to run" }).catch(() => {
        /* the assertion below says what ran */
      });
      expect(calls).toEqual(["push-dlv_failtest-1", "push-dlv_failtest-1"]);
    } finally {
      await Promise.all(inProcess.splice(0).map((close) => close()));
      await closeProducers();
      delete process.env.REDIS_URL;
      delete process.env.MA2H_QUEUE_PREFIX;
      resetEnvCache();
    }
  });

  it("two workers side by side send each attempt once (the row lease)", async () => {
    if (workers.length < 2) await worker();
    const sent = [];
    for (let i = 0; i < 10; i++) sent.push(await push(`/d/race-${i}`));
    await Promise.all(sent.map((s) => answer(s.id)));
    for (const [i, s] of sent.entries()) {
      await rx.waitFor(`/d/race-${i}`, 1);
      expect((await waitForDelivery(s.id, (d) => d.status !== "pending")).attempts).toBe(1);
    }
    // The losing worker's attempts would arrive late, if at all: a window in which none may.
    const races = Array.from({ length: 10 }, (_, i) => `/d/race-${i}`);
    await staysFalse(() => races.some((path) => rx.at(path).length > 1), 1500, "a second send of one attempt");
    for (let i = 0; i < 10; i++) expect(rx.at(`/d/race-${i}`)).toHaveLength(1);
  });
});

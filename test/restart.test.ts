/**
 * §3.1 durability across a SIGKILL: the whole Hub (`npm run hub`: migrations, web,
 * worker) is killed with SIGKILL — no shutdown code runs — and started again on the same database
 * and port. Every open ask/task is still open, the committed resolution is intact (same
 * resolution_id and response), the delivered notify still pullable, idempotent replays return the
 * original ids, and the expiring asks expire on time with nobody polling them.
 *
 * The first run queues its expiry jobs on Redis; the second runs without REDIS_URL, so those jobs
 * are out of its reach (as after a Redis restart — ours keeps nothing on disk) and expiry must come
 * from PostgreSQL alone (the worker's sweeps).
 */
// covers: server/hub.ts, workers/main.ts, lib/jobs/sweeps.ts
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { client, startHub, type HubProcess } from "./support/hub";
import { envelope, provisionAccount, type Provisioned } from "./support/provision";
import { useTestDatabase } from "./support/test-database";

const A = "deploybot/dev-team";
const database = useTestDatabase();
let acme: Provisioned;
const hubs: HubProcess[] = [];

beforeAll(async () => {
  acme = await provisionAccount("acme", [A], [{ handle: "alice", role: "owner" }]);
});

afterAll(async () => {
  await Promise.all(hubs.map((h) => h.stop("SIGKILL")));
});

/** Pids still alive in a process group (the group leader's pid is the group id). */
function groupMembers(pgid: number): string[] {
  const out = execFileSync("ps", ["-e", "-o", "pid=,pgid=,stat=,args="]).toString();
  return out
    .split("\n")
    .map((l) => l.trim().split(/\s+/))
    .filter(([, group]) => Number(group) === pgid)
    .map((cols) => cols.join(" "));
}

/** Waits (briefly) for a killed process group to be gone; returns whatever is left. */
async function groupGone(pgid: number, ms = 3000): Promise<string[]> {
  const deadline = Date.now() + ms;
  let left = groupMembers(pgid);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((ok) => setTimeout(ok, 100));
    left = groupMembers(pgid);
  }
  return left;
}

async function start(port?: number, env: Record<string, string | undefined> = {}): Promise<HubProcess> {
  const hub = await startHub({ databaseUrl: database.url, mode: "hub", port, env });
  hubs.push(hub);
  return hub;
}

describe("SIGKILL and restart of the whole Hub", () => {
  it("keeps open asks, resolutions, notifies and idempotency; expiry still fires without traffic", async () => {
    const first = await start(undefined, { REDIS_URL: "redis://127.0.0.1:6379" });
    const agent = client(first.url, acme.keys[A]);
    const alice = client(first.url, acme.tokens.alice);

    const bodies = {
      open1: envelope("ask", A, { state: { step: 1 } }),
      open2: envelope("ask", A, { request: { mode: "confirm" } }),
      task: envelope("task", A),
      answered: envelope("ask", A, { state: { step: 2 } }),
      notify: envelope("notify", A, { idempotency_key: `notify-${Date.now()}` }),
      soon: envelope("ask", A, { request: { mode: "confirm", default_on_expire: "deny" } }),
      later: envelope("ask", A),
    };
    // Each expiring ask's deadline is stamped as it is posted: the first requests of a Hub load their
    // routes, which on a loaded box can take longer than the 6 s lead of `soon` (it was then refused,
    // 422, as already past).
    const leadMs: Record<string, number> = { soon: 6000, later: 20_000 };
    const ids: Record<string, string> = {};
    for (const [name, body] of Object.entries(bodies)) {
      if (leadMs[name]) body.expires_at = new Date(Date.now() + leadMs[name]).toISOString();
      const res = await agent.post("/v1/messages", body);
      expect([name, res.status]).toEqual([name, 202]);
      ids[name] = res.body.id;
    }
    const resolved = await alice.post(`/v1/messages/${ids.answered}/resolve`, {
      resolution: "answered",
      value: "hold",
      comment: "not today",
    });
    expect(resolved.status).toBe(200);
    const before = await agent.get(`/v1/messages/${ids.answered}`);
    expect(before.body.response).toMatchObject({
      resolution_id: resolved.body.resolution_id,
      resolution: "answered",
      state: { step: 2 },
    });

    const killMs = await first.stop("SIGKILL");
    expect(await groupGone(first.child.pid as number)).toEqual([]); // web and worker died with it
    const t0 = Date.now();
    const second = await start(first.port); // same database, same port, no REDIS_URL
    const restartMs = Date.now() - t0;
    console.info(`[restart] SIGKILL took ${killMs} ms; the hub answered again ${restartMs} ms after spawn`);
    expect(second.url).toBe(first.url);
    const agent2 = client(second.url, acme.keys[A]);

    for (const name of ["open1", "open2", "task"]) {
      const got = await agent2.get(`/v1/messages/${ids[name]}`);
      expect([name, got.status, got.body.status, "response" in got.body]).toEqual([name, 200, "open", false]);
    }
    expect((await agent2.get(`/v1/messages/${ids.open1}`)).body.state).toEqual({ step: 1 });

    const after = await agent2.get(`/v1/messages/${ids.answered}`);
    expect(after.body.status).toBe("answered");
    expect(after.body.response).toEqual(before.body.response);
    expect(await db().resolution.count({ where: { messageId: ids.answered } })).toBe(1);

    const notify = await agent2.get(`/v1/messages/${ids.notify}`);
    expect([notify.status, notify.body.status]).toEqual([200, "delivered"]);

    // Idempotent replays answer with the original ids and the current status.
    for (const [name, status] of [
      ["open1", "open"],
      ["answered", "answered"],
      ["notify", "delivered"],
      ["task", "open"],
    ] as const) {
      const replay = await agent2.post("/v1/messages", bodies[name]);
      expect([name, replay.status, replay.body.id, replay.body.status]).toEqual([name, 202, ids[name], status]);
    }

    // The expiring asks, watched in the database only (no GET for them, before or after the kill).
    const ready = t0 + restartMs;
    for (const name of ["soon", "later"] as const) {
      const expiresAt = Date.parse(bodies[name].expires_at as string);
      const deadline = Math.max(expiresAt, ready) + 15_000;
      let row = await db().message.findUniqueOrThrow({ where: { id: ids[name] }, include: { resolution: true } });
      while (row.status === "open" && Date.now() < deadline) {
        await new Promise((ok) => setTimeout(ok, 50));
        row = await db().message.findUniqueOrThrow({ where: { id: ids[name] }, include: { resolution: true } });
      }
      expect([name, row.status]).toEqual([name, "expired"]);
      const resolvedAt = row.resolution?.resolvedAt.getTime() ?? 0;
      const lateBy = resolvedAt - Math.max(expiresAt, ready);
      console.info(
        `[restart] ${name}: expired ${resolvedAt - expiresAt} ms after expires_at (${lateBy} ms after it was both due and the hub back)`,
      );
      expect(resolvedAt).toBeGreaterThan(expiresAt);
      // Due while the hub was down → the start sweep; due later → at the latest the next 5 s sweep.
      expect(lateBy).toBeLessThanOrEqual(6000);
      expect(second.output()).not.toContain(`/v1/messages/${ids[name]}`);
      expect(first.output()).not.toContain(`/v1/messages/${ids[name]}`);
    }
    expect((await db().resolution.findUniqueOrThrow({ where: { messageId: ids.soon } })).actor).toBe(
      "system:default_on_expire",
    );

    const stopMs = await second.stop();
    console.info(`[restart] SIGTERM stop took ${stopMs} ms`);
    expect(stopMs).toBeLessThan(10_000);
  });
});

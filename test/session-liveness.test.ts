/**
 * §16.2: the Hub makes no renewals of its own (docs/decisions/sessions.md "No Hub-made renewals"; choice A22,
 * lib/sessions/liveness.ts). Against this file's own database: with `hub_liveness` last stamped 60 s
 * ago the session sweep expires nothing (the gate only delays it); a web process starting after the
 * gap stamps and renews nothing — a lease that lapsed during the gap keeps its `expires_at`, presenting
 * it answers `410 gone` (register again) and ends it `expired` at that `expires_at`, and the sweep ends
 * the rest at theirs. Then the real worker process: it leaves a lapsed lease alone while the stamp is
 * stale, and expires it within seconds once a web stamps. No web process runs in this file (one would
 * stamp the row the test sets); the web's start is `startLiveness`, called here.
 */
// covers: lib/sessions/liveness.ts, lib/sessions/sweep.ts, lib/sessions/lease.ts
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { isHubError } from "@ma2h/protocol/errors";
import { mintId } from "@ma2h/protocol/ids";
import type { AgentPrincipal } from "../lib/principals/types";
import { presentSession } from "../lib/sessions/lease";
import { STALE_MS, startLiveness, webServing } from "../lib/sessions/liveness";
import { sweepSessions } from "../lib/sessions/sweep";
import { startHub, type HubProcess } from "./support/hub";
import { provisionAccount } from "./support/provision";
import { useTestDatabase } from "./support/test-database";
import { staysFalse, waitFor, waitUntil } from "./support/wait";

const database = useTestDatabase();
const A = "deploybot/dev-team";
let agent: { id: string; accountId: string };
let principal: AgentPrincipal;
let worker: HubProcess | undefined;

beforeAll(async () => {
  await provisionAccount("acme", [A]);
  agent = await db().agent.findFirstOrThrow({ where: { agentId: A }, select: { id: true, accountId: true } });
  principal = { kind: "agent", agentRowId: agent.id, agentId: A, accountId: agent.accountId, keyId: "test" };
});

afterAll(async () => {
  await worker?.stop("SIGKILL");
});

/** An active session whose lease ends at `expiresAt`, stored as registration would store it. */
async function session(expiresAt: Date): Promise<string> {
  const id = mintId("session");
  await db().agentSession.create({
    data: {
      id,
      accountId: agent.accountId,
      agentRowId: agent.id,
      ttlSeconds: 60,
      createdAt: new Date(expiresAt.getTime() - 60_000),
      expiresAt,
      lastSeenAt: new Date(expiresAt.getTime() - 60_000),
    },
  });
  return id;
}

async function stampAt(at: Date): Promise<void> {
  await db().hubLiveness.upsert({ where: { id: 1 }, create: { id: 1, webSeenAt: at }, update: { webSeenAt: at } });
}

const rowOf = (id: string) => db().agentSession.findUniqueOrThrow({ where: { id } });
const ago = (now: Date, ms: number) => new Date(now.getTime() - ms);

describe("no Hub-made renewals (§16.2; A22 only delays the sweep)", () => {
  it("a web starting after an outage renews nothing: a lease that lapsed during the gap is gone (410) and expired at its own expires_at", async () => {
    const now = new Date();
    await stampAt(ago(now, 60_000));
    const duringGap = await session(ago(now, 30_000)); // lapsed after the last stamp: nobody could renew it
    const beforeGap = await session(ago(now, 90_000)); // lapsed while a web still served
    const live = await session(new Date(now.getTime() + 100_000));
    const before = await Promise.all([duringGap, beforeGap, live].map(rowOf));

    // The gate: with no web serving, the sweep waits.
    expect(await webServing(now)).toBe(false);
    expect(await sweepSessions(now)).toMatchObject({ expired: 0 });
    expect(await Promise.all([duringGap, beforeGap, live].map(rowOf))).toEqual(before);

    // A web process starts: it stamps, and gives nothing a fresh window.
    const stop = startLiveness();
    try {
      await waitFor(() => webServing(), { timeout: 10_000, what: "startLiveness to stamp" });
    } finally {
      stop();
    }
    expect(await Promise.all([duringGap, beforeGap, live].map(rowOf))).toEqual(before);

    // The client's next drain presents it: 410 gone, "register a new one", and the lease is expired
    // at its own expires_at on the Hub clock, whatever the Hub's uptime was.
    const presented = await presentSession(principal, duringGap, { touchpoint: "presented", renew: true }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(isHubError(presented) && [presented.code, presented.status]).toEqual(["gone", 410]);
    const ended = await rowOf(duringGap);
    expect([ended.state, ended.endedAt?.getTime()]).toEqual(["expired", ago(now, 30_000).getTime()]);

    // With the stamp fresh, the sweep ends the other lapsed lease at its own expires_at; the live one runs on.
    expect(await sweepSessions(new Date())).toMatchObject({ expired: 1 });
    const swept = await rowOf(beforeGap);
    expect([swept.state, swept.endedAt?.getTime()]).toEqual(["expired", ago(now, 90_000).getTime()]);
    expect(await rowOf(live)).toEqual(before[2]);
  });

  it("the stamp is fresh up to STALE_MS (three missed stamps) and stale after", async () => {
    const now = new Date();
    await stampAt(ago(now, STALE_MS));
    expect(await webServing(now)).toBe(true);
    await stampAt(ago(now, STALE_MS + 1));
    expect(await webServing(now)).toBe(false);
    const lapsed = await session(ago(now, 1000)); // lapsed after that stamp
    expect(await sweepSessions(now)).toMatchObject({ expired: 0 });
    expect((await rowOf(lapsed)).state).toBe("active");
    await db().agentSession.delete({ where: { id: lapsed } });
  });

  it("the worker process alone leaves a lapsed lease alone, and expires it within seconds once a web stamps", async () => {
    await stampAt(ago(new Date(), 60_000));
    const lapsed = await session(ago(new Date(), 5_000));
    worker = await startHub({ databaseUrl: database.url, mode: "worker" });
    const w = worker;
    await waitFor(() => w.output().includes("worker running") || w.child.exitCode !== null, {
      timeout: 90_000,
      every: 100,
      what: "the worker's `worker running` line",
    }).catch(() => undefined);
    if (!w.output().includes("worker running")) throw new Error(`worker:\n${w.output()}`);
    // Three or more session sweeps (every second) in which the lapsed lease stays as it is.
    await staysFalse(async () => (await rowOf(lapsed)).state !== "active", 3500, "the sweep expiring the lease", 100);
    expect((await rowOf(lapsed)).state).toBe("active");
    expect((await db().hubLiveness.findUniqueOrThrow({ where: { id: 1 } })).webSeenAt.getTime()).toBeLessThan(
      Date.now() - 50_000,
    ); // the worker does not stamp

    await stampAt(new Date()); // as a web process does every few seconds
    const state = await waitUntil(
      async () => (await rowOf(lapsed)).state,
      (s) => s !== "active",
      { timeout: 10_000, every: 200, what: "the sweep to expire the lease" },
    );
    expect(state).toBe("expired");
  });
});

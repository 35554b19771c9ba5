/**
 * Choice A22 (docs/decisions.md "Leases while the Hub is down", lib/sessions/liveness.ts): a lease
 * must not expire because no web process was up to renew it. Against this file's own database: with
 * `hub_liveness` last stamped 60 s ago, the session sweep expires nothing; the revival a web process
 * runs at start gives a lease that lapsed during the gap a fresh presence window (now + freshness),
 * and leaves one that lapsed before the gap to the sweep. Then the real worker process: it leaves a
 * lapsed lease alone while the stamp is stale, and expires it within seconds once a web stamps.
 * No web process runs in this file (one would stamp the row the test sets).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { inboundLimits } from "../lib/env";
import { mintId } from "../lib/protocol/ids";
import { reviveAfterOutage, STALE_MS, webServing } from "../lib/sessions/liveness";
import { sweepSessions } from "../lib/sessions/sweep";
import { startHub, type HubProcess } from "./support/hub";
import { provisionAccount } from "./support/provision";
import { sleep } from "./support/session-kit";
import { useTestDatabase } from "./support/test-database";

const database = useTestDatabase();
const A = "deploybot/dev-team";
let agent: { id: string; accountId: string };
let worker: HubProcess | undefined;

beforeAll(async () => {
  await provisionAccount("acme", [A]);
  agent = await db().agent.findFirstOrThrow({ where: { agentId: A }, select: { id: true, accountId: true } });
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

describe("leases while no web process serves (A22)", () => {
  it("a stale stamp: the sweep expires nothing; the revival renews what lapsed during the gap, not before it", async () => {
    const now = new Date();
    await stampAt(ago(now, 60_000));
    const duringGap = await session(ago(now, 30_000)); // lapsed after the last stamp: nobody could renew it
    const beforeGap = await session(ago(now, 90_000)); // lapsed while a web still served
    const live = await session(new Date(now.getTime() + 100_000));
    const before = await Promise.all([duringGap, beforeGap, live].map(rowOf));

    expect(await webServing(now)).toBe(false);
    expect(await sweepSessions(now)).toMatchObject({ expired: 0 });
    expect(await Promise.all([duringGap, beforeGap, live].map(rowOf))).toEqual(before);

    expect(await reviveAfterOutage(now)).toBe(1);
    const revived = await rowOf(duringGap);
    expect(revived.state).toBe("active");
    expect(revived.expiresAt.getTime()).toBe(now.getTime() + inboundLimits().presenceFreshnessSeconds * 1000);
    expect(revived.endedAt).toBeNull();
    expect(await rowOf(beforeGap)).toEqual(before[1]);
    expect(await rowOf(live)).toEqual(before[2]);
    // The revival stamped: the Hub serves again, and a second revival has nothing to do.
    expect((await db().hubLiveness.findUniqueOrThrow({ where: { id: 1 } })).webSeenAt.getTime()).toBe(now.getTime());
    expect(await webServing(now)).toBe(true);
    const later = new Date(now.getTime() + 1000);
    expect(await reviveAfterOutage(later)).toBe(0);

    // With the stamp fresh, the sweep ends the lease that lapsed before the gap — at its own expires_at.
    expect(await sweepSessions(later)).toMatchObject({ expired: 1 });
    const ended = await rowOf(beforeGap);
    expect([ended.state, ended.endedAt?.getTime()]).toEqual(["expired", ago(now, 90_000).getTime()]);
    expect((await rowOf(duringGap)).state).toBe("active");
    expect((await rowOf(live)).state).toBe("active");
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
    const deadline = Date.now() + 90_000;
    while (!worker.output().includes("worker running")) {
      if (worker.child.exitCode !== null || Date.now() > deadline) throw new Error(`worker:\n${worker.output()}`);
      await sleep(100);
    }
    await sleep(3500); // three or more session sweeps (every second)
    expect((await rowOf(lapsed)).state).toBe("active");
    expect((await db().hubLiveness.findUniqueOrThrow({ where: { id: 1 } })).webSeenAt.getTime()).toBeLessThan(
      Date.now() - 50_000,
    ); // the worker does not stamp

    await stampAt(new Date()); // as a web process does every few seconds
    const until = Date.now() + 10_000;
    let state = "active";
    while (state === "active" && Date.now() < until) {
      await sleep(200);
      state = (await rowOf(lapsed)).state;
    }
    expect(state).toBe("expired");
  });
});

/**
 * Choice A22 (docs/decisions.md "Leases while the Hub is down"): a client cannot renew while no web
 * process serves, so an outage must not expire its lease. Every web process stamps `hub_liveness`
 * every few seconds. The first web process to start after a gap longer than STALE_MS gives every
 * active lease that lapsed during the gap a fresh presence window (now + `freshness_seconds`) —
 * never forgetting it, never bouncing it at once — and the worker's expiry sweep ends leases only
 * while the stamp is fresh, so a worker running alone does not expire what nobody could renew.
 */
import { clock } from "../clock";
import { db } from "../db";
import { inboundLimits } from "../env";
import { log } from "../log";

const STAMP_MS = 5_000;
/** Three missed stamps: no web process was serving. */
export const STALE_MS = 15_000;
/** pg_advisory_xact_lock key of the revival, so two web processes starting together revive once. */
const REVIVE_LOCK = 0x6d6132_16;

/** Gives leases that lapsed during an outage a fresh window; stamps liveness. Returns how many. */
export async function reviveAfterOutage(now: Date = clock.now()): Promise<number> {
  return db().$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${REVIVE_LOCK})`;
    const row = await tx.hubLiveness.findUnique({ where: { id: 1 } });
    let revived = 0;
    if (row && now.getTime() - row.webSeenAt.getTime() > STALE_MS) {
      const until = new Date(now.getTime() + inboundLimits().presenceFreshnessSeconds * 1000);
      revived = await tx.$executeRaw`
        UPDATE agent_sessions SET expires_at = ${until}
         WHERE state = 'active' AND expires_at > ${row.webSeenAt} AND expires_at <= ${now}`;
    }
    await stamp(now, tx);
    return revived;
  });
}

async function stamp(now: Date, tx: Pick<ReturnType<typeof db>, "hubLiveness"> = db()): Promise<void> {
  await tx.hubLiveness.upsert({
    where: { id: 1 },
    create: { id: 1, webSeenAt: now },
    update: { webSeenAt: now },
  });
}

/** Whether a web process stamped recently: only then may the sweep expire leases. */
export async function webServing(now: Date = clock.now()): Promise<boolean> {
  const row = await db().hubLiveness.findUnique({ where: { id: 1 } });
  return row !== null && now.getTime() - row.webSeenAt.getTime() <= STALE_MS;
}

/** A web process: revive after an outage once, then stamp every few seconds. */
export function startLiveness(): void {
  reviveAfterOutage()
    .then((revived) => {
      if (revived > 0) log.info("session leases that lapsed while the Hub was down were renewed", { count: revived });
    })
    .catch((err: Error) => log.warn("session liveness revival failed", { error_name: err.name }));
  setInterval(() => {
    stamp(clock.now()).catch((err: Error) => log.warn("liveness stamp failed", { error_name: err.name }));
  }, STAMP_MS).unref();
}

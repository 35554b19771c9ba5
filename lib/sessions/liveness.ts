/**
 * §16.2 / choice A22: every web process stamps `hub_liveness` every few seconds, and the worker's
 * expiry sweep ends lapsed leases only while the stamp is fresh — a gate that only DELAYS the sweep
 * while no web process serves, so a worker running alone does not churn bounces nobody can see.
 * It never renews anything: §16.2 renews a lease only on client-originated activity, so the Hub
 * makes no renewals of its own. A lease that lapsed on the Hub clock is expired whatever the Hub's
 * uptime: presenting it answers `410 gone` (./lease.ts) and the client registers again.
 */
import { clock } from "../clock";
import { db } from "../db";
import { log } from "../log";

const STAMP_MS = 5_000;
/** Three missed stamps: no web process was serving. */
export const STALE_MS = 15_000;

async function stamp(now: Date): Promise<void> {
  await db().hubLiveness.upsert({
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

/** A web process: stamps now and every few seconds after. Returns a stop (for tests). */
export function startLiveness(): () => void {
  const tick = () =>
    stamp(clock.now()).catch((err: Error) => log.warn("liveness stamp failed", { error_name: err.name }));
  void tick();
  const timer = setInterval(tick, STAMP_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * The periodic sweep (at worker start and every MA2H_EXPIRY_SWEEP_MS ≤ 5 s): expiry of anything
 * overdue, straight from PostgreSQL (§3.1 — Redis here keeps nothing on disk), plus the slower
 * directives past their drop time (§13.3), plus the slower housekeeping (retention purges,
 * rate-counter pruning) about once a minute.
 */
import { clock } from "../clock";
import { dropDueDirectives, purgeEndedDirectives } from "../mailbox/expiry";
import { expireDue } from "../messages/expiry";
import { purgeExpiredRetention } from "../messages/retention";
import { pruneRateCounters } from "../rate-limit";
import { log } from "../log";

let lastHousekeeping = 0;

export async function runSweeps(): Promise<void> {
  const now = clock.now();
  const expired = await expireDue(now);
  if (expired > 0) log.info("sweep expired messages", { count: expired });
  const dropped = await dropDueDirectives(now); // §13.3
  if (dropped > 0) log.info("sweep ended undelivered directives", { count: dropped });
  if (now.getTime() - lastHousekeeping >= 60_000) {
    lastHousekeeping = now.getTime();
    const purged = await purgeExpiredRetention(now);
    if (purged > 0) log.info("retention purged messages", { count: purged });
    await purgeEndedDirectives(now);
    await pruneRateCounters(now);
  }
}

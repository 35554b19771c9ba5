/**
 * The worker's session sweep (lib/jobs/sweeps.ts): ends lapsed leases while a web process serves
 * (./liveness.ts, choice A22), re-applies the §14.2 bounce rules to un-acked directives addressed to
 * any session that is no longer live (a crash between a session's end and its bounce, or an author
 * racing the end — §3.1), and purges terminal sessions past `terminal_retention_seconds`. Stop
 * records (`agent_stops`) are never touched here (§16.4.1).
 */
import { clock } from "../clock";
import { db } from "../db";
import { sessionLimits } from "../env";
import { bounceSessionMail, expireLapsed } from "./end";
import { webServing } from "./liveness";
import { readOrphanedSessions } from "./sweep.sql";

const BATCH = 500;

export async function sweepSessions(
  now: Date = clock.now(),
): Promise<{ expired: number; bounced: number; purged: number }> {
  const expired = (await webServing(now)) ? await expireLapsed({}, now, BATCH) : 0;
  const orphans = await readOrphanedSessions(BATCH);
  const bounced = orphans.length > 0 ? await db().$transaction((tx) => bounceSessionMail(tx, orphans, now)) : 0;
  const cutoff = new Date(now.getTime() - sessionLimits().terminalRetentionSeconds * 1000);
  const { count: purged } = await db().agentSession.deleteMany({
    where: { state: { not: "active" }, endedAt: { lt: cutoff } },
  });
  return { expired, bounced, purged };
}

/**
 * The worker's periodic sweeps, each with its period; one timer runs them all (./sweep-timer.ts).
 * They make PostgreSQL, not the queue, the source of truth (§3.1 — Redis here keeps nothing on
 * disk): whatever a lost job would have done, a sweep does.
 */
import { escalateDue } from "../assignment/escalate";
import { sealPending } from "../audit/seal";
import { clock } from "../clock";
import { db } from "../db";
import type { Env } from "../env";
import { log } from "../log";
import { dropDueDirectives, purgeEndedDirectives } from "../mailbox/expiry";
import { settleUndeliverable } from "../mailbox/undeliverable";
import { expireDue } from "../messages/expiry";
import { purgeExpiredRetention } from "../messages/retention";
import { sweepNotifications } from "../notifications/fanout";
import { enqueuePush } from "../queue/enqueue";
import { pruneRateCounters } from "../rate-limit";
import { sweepSessions } from "../sessions/sweep";
import { pushDueA2a } from "../a2a/push";

/** The audit sealer's period: a row is sealed within about a second of its commit (within 5 s at the latest). */
const AUDIT_SEAL_MS = 1000;
const SESSION_SWEEP_MS = 1000;

export interface Sweep {
  name: string;
  periodMs: number;
  run(): Promise<void>;
}

/** Expiry of anything overdue (§7), and directives past their drop time (§13.3). */
async function sweepOverdue(): Promise<void> {
  const now = clock.now();
  const expired = await expireDue(now);
  if (expired > 0) log.info("sweep expired messages", { count: expired });
  const dropped = await dropDueDirectives(now);
  if (dropped > 0) log.info("sweep ended undelivered directives", { count: dropped });
  // Undeliverable addressed messages whose wake-up nobody heard (§3.1).
  const settled = await settleUndeliverable(clock.now());
  if (settled > 0) log.info("sweep settled undeliverable addressed messages", { count: settled });
  // The approval policy's escalations due (lib/assignment/escalate.ts).
  const escalated = await escalateDue(clock.now());
  if (escalated > 0) log.info("sweep escalated asks by policy", { count: escalated });
}

/** Enqueues every pending push obligation due within the next `horizonMs` (§8.3, §3.1). */
async function sweepDueDeliveries(horizonMs: number): Promise<void> {
  const now = clock.now();
  const due = await db().pushDelivery.findMany({
    where: {
      status: "pending",
      nextAttemptAt: { lte: new Date(now.getTime() + horizonMs) },
      OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }],
    },
    select: { id: true, nextAttemptAt: true, attempts: true },
    orderBy: { nextAttemptAt: "asc" },
    take: 1000,
  });
  for (const d of due) await enqueuePush(d.id, d.nextAttemptAt, d.attempts + 1);
}

/** Retention purges (§8.2), ended directives and rate-counter rows of windows long past. */
async function housekeeping(): Promise<void> {
  const now = clock.now();
  const purged = await purgeExpiredRetention(now);
  if (purged > 0) log.info("retention purged messages", { count: purged });
  await purgeEndedDirectives(now);
  await pruneRateCounters(now);
}

/** §16: lapsed leases, orphaned session mail, terminal sessions past retention (lib/sessions/sweep.ts). */
async function sessionSweep(): Promise<void> {
  const { expired, bounced, purged } = await sweepSessions();
  if (expired + bounced + purged > 0) log.info("session sweep", { expired, bounced, purged });
}

/** Seals committed audit rows into their streams' hash chains. */
async function sealAudit(): Promise<void> {
  const sealed = await sealPending();
  if (sealed > 0) log.debug("audit rows sealed", { count: sealed });
}

/** Audit sealing every second (rows sealed within 5 s); expiry every MA2H_EXPIRY_SWEEP_MS (≤ 5 s), pushes and notifications every MA2H_DELIVERY_SWEEP_MS (≤ 10 s), housekeeping every minute. */
export function sweeps(e: Pick<Env, "MA2H_EXPIRY_SWEEP_MS" | "MA2H_DELIVERY_SWEEP_MS">): Sweep[] {
  return [
    { name: "expiry", periodMs: e.MA2H_EXPIRY_SWEEP_MS, run: sweepOverdue },
    { name: "delivery", periodMs: e.MA2H_DELIVERY_SWEEP_MS, run: () => sweepDueDeliveries(e.MA2H_DELIVERY_SWEEP_MS) },
    // A2A push configs whose task changed since their last push, and their retries (lib/a2a/push.ts).
    { name: "a2a-push", periodMs: e.MA2H_DELIVERY_SWEEP_MS, run: () => pushDueA2a().then(() => undefined) },
    // Notifications: unprocessed outbox rows, due and interrupted sends, on the delivery period.
    { name: "notifications", periodMs: e.MA2H_DELIVERY_SWEEP_MS, run: sweepNotifications },
    { name: "housekeeping", periodMs: 60_000, run: housekeeping },
    { name: "audit-seal", periodMs: AUDIT_SEAL_MS, run: sealAudit },
    // A lapsed lease is ended within about a second (its touchpoints also end it on sight).
    { name: "sessions", periodMs: SESSION_SWEEP_MS, run: sessionSweep },
  ];
}

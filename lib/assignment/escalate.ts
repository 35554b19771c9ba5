/**
 * Escalation by policy (docs/policies.md "Escalation"): when the matching rules of an ask have
 * `escalate_after` and nobody has answered it that long after submit, the earliest rule's
 * `escalate_to` is assigned and told, with the notification escalation machinery (kind
 * `escalation`, lib/notifications/). Durable like expiry (§7): the fan-out writes a
 * `policy_escalations` row due at submit + `escalate_after` (lib/policies/escalation.ts), and the worker's
 * expiry sweep (lib/jobs/sweeps.ts) runs `escalateDue`; nothing is held in a timer. With an explicit
 * `allowed_resolvers`, the people it does not name are told only (§9.1).
 */
import { clock } from "../clock";
import { db, type Tx } from "../db";
import { AUDIT_EVENT } from "../audit/events";
import { log } from "../log";
import { lockMessageForVote } from "../messages/approvals.sql";
import { KIND_ESCALATION } from "../notifications/kinds";
import type { Routing } from "../policies/evaluate";
import { routingOf } from "../policies/routing";
import { enqueueNotify } from "../queue/enqueue";
import { commitAssignment, peopleNamed, planAssignment } from "./assign";

/** The actor of a policy escalation in the audit trail and on the item. */
export const ESCALATION_ACTOR = "system:policy";
/** How many due escalations one sweep takes. */
const SWEEP_BATCH = 100;

/** Whether anyone has answered: a settled ask, or a vote recorded on a quorum's. */
async function answered(q: Tx, id: string, status: string): Promise<boolean> {
  return status !== "open" || (await q.approvalVote.count({ where: { messageId: id } })) > 0;
}

/**
 * Escalates one due ask, or drops its escalation row when somebody has answered (or it is gone).
 * Returns whether it escalated.
 */
export async function escalateOne(id: string, now: Date): Promise<boolean> {
  const row = await db().message.findUnique({
    where: { id },
    select: { id: true, accountId: true, type: true, status: true, priority: true, envelope: true, routing: true },
  });
  const escalation = row ? routingOf(row)?.escalation : undefined;
  if (!row || !escalation || (await answered(db(), id, row.status))) {
    await db().policyEscalation.deleteMany({ where: { messageId: id } });
    return false;
  }
  const people = await peopleNamed(db(), row.accountId, escalation.to);
  const planned = await planAssignment(
    row,
    {
      to: escalation.to,
      via: "escalation",
      by: ESCALATION_ACTOR,
      event: AUDIT_EVENT.messageEscalated,
      detail: { rule: escalation.rule, after: escalation.after },
      people,
    },
    KIND_ESCALATION,
    now,
  );
  const done = await db().$transaction(async (tx) => {
    const locked = await lockMessageForVote(tx, id);
    const gone = await tx.policyEscalation.deleteMany({ where: { messageId: id } });
    // Another sweep took it, or somebody answered since the plan.
    if (locked === null || gone.count === 0 || (await answered(tx, id, locked.status))) return false;
    const current = await tx.message.findUniqueOrThrow({ where: { id }, select: { routing: true } });
    await commitAssignment(tx, row, routingOf(current) as Routing, planned, now);
    return true;
  });
  if (done) await enqueueNotify(id, `escalated-${now.getTime()}`);
  return done;
}

/** Every escalation due at `now` (a batch per call); returns how many escalated. */
export async function escalateDue(now: Date = clock.now()): Promise<number> {
  const due = await db().policyEscalation.findMany({
    where: { dueAt: { lte: now } },
    select: { messageId: true },
    orderBy: { dueAt: "asc" },
    take: SWEEP_BATCH,
  });
  let escalated = 0;
  for (const d of due) {
    try {
      if (await escalateOne(d.messageId, now)) escalated++;
    } catch (err) {
      // One failing ask must not hold back the others; its row stays, and the next sweep retries it.
      log.warn("policy escalation failed", { message_id: d.messageId, error: String(err) });
    }
  }
  return escalated;
}

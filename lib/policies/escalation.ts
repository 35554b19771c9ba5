/**
 * The escalation obligation of a routed ask (docs/policies.md "Escalation"): when its recorded
 * routing escalates, a `policy_escalations` row due at submit + `escalate_after`, written once, in
 * the fan-out's transaction (lib/notifications/fanout.ts) — durable as the ask itself; the worker's
 * sweep carries it out (lib/assignment/escalate.ts).
 */
import type { Tx } from "../db";
import { routingOf } from "./routing";

export async function scheduleEscalation(
  tx: Tx,
  message: { id: string; createdAt: Date; routing: string | null },
): Promise<void> {
  const escalation = routingOf(message)?.escalation;
  if (!escalation) return;
  await tx.policyEscalation.createMany({
    data: [{ messageId: message.id, dueAt: new Date(message.createdAt.getTime() + escalation.after_ms) }],
    skipDuplicates: true,
  });
}

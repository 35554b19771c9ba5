/** Operator views and actions on push obligations (CLI `deliveries …`, the item page's deliveries). */
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit } from "../audit/write";
import { clock } from "../clock";
import { db } from "../db";
import { HubError } from "@ma2h/protocol/errors";
import { enqueuePush } from "../queue/enqueue";
import { actorOf, type AdminOptions } from "../principals/admin-scope";

export interface DeliveryView {
  id: string;
  message_id: string;
  resolution_id: string;
  callback_url: string;
  status: string;
  attempts: Array<{
    attempt: number;
    at: string;
    status_code: number | null;
    latency_ms: number;
    error_class: string | null;
    outcome: string;
  }>;
  next_attempt_at: string | null;
  delivered_at: string | null;
}

export async function listDeliveries(messageId: string): Promise<DeliveryView[]> {
  const rows = await db().pushDelivery.findMany({
    where: { messageId },
    include: { attemptLog: { orderBy: { attempt: "asc" } } },
    orderBy: { createdAt: "asc" },
  });
  return rows.map((d) => ({
    id: d.id,
    message_id: d.messageId,
    resolution_id: d.resolutionId,
    callback_url: d.callbackUrl,
    status: d.status,
    attempts: d.attemptLog.map((a) => ({
      attempt: a.attempt,
      at: a.at.toISOString(),
      status_code: a.statusCode,
      latency_ms: a.latencyMs,
      error_class: a.errorClass,
      outcome: a.outcome,
    })),
    next_attempt_at: d.status === "pending" ? d.nextAttemptAt.toISOString() : null,
    delivered_at: d.deliveredAt?.toISOString() ?? null,
  }));
}

/**
 * Starts a fresh retry cycle for an obligation that is not delivered (failed, exhausted, refused,
 * or revoked-and-since-reapproved): due now, with the full attempt and duration budget again. Once
 * committed, the cycle's first attempt is enqueued at once, whoever redrives (CLI or web admin);
 * best effort, as the delivery sweep re-derives it from PostgreSQL anyway (§3.1).
 */
export async function redriveDelivery(id: string, opts?: AdminOptions): Promise<{ id: string; status: "pending" }> {
  const now = clock.now();
  const scope = opts?.accountId ? { message: { accountId: opts.accountId } } : {};
  const d = await db().pushDelivery.findFirst({
    where: { id, ...scope },
    include: { message: { select: { accountId: true } } },
  });
  if (!d) throw new HubError("not_found", `no delivery ${id}`);
  if (d.status === "delivered") throw new HubError("invalid_field", `delivery ${id} was already delivered`);
  await db().$transaction(async (tx) => {
    // Conditional on "not delivered": a push landing between the read and this write stays delivered.
    const { count } = await tx.pushDelivery.updateMany({
      where: { id, status: { not: "delivered" } },
      data: {
        status: "pending",
        nextAttemptAt: now,
        cycleStartedAt: now,
        cycleAttempts: 0,
        leaseUntil: null,
        updatedAt: now,
      },
    });
    if (count === 0) throw new HubError("invalid_field", `delivery ${id} was already delivered`);
    await writeAudit(tx, {
      accountId: d.message.accountId,
      messageId: d.messageId,
      actor: actorOf(opts),
      event: AUDIT_EVENT.deliveryRedriven,
      detail: { delivery_id: id },
      at: now,
    });
  });
  await kickRedriven(id);
  return { id, status: "pending" };
}

/** Enqueues the redriven cycle's first attempt, numbered after every attempt the row has logged. */
async function kickRedriven(id: string): Promise<void> {
  const row = await db().pushDelivery.findUnique({
    where: { id },
    select: { status: true, attempts: true, nextAttemptAt: true },
  });
  if (row?.status === "pending") await enqueuePush(id, row.nextAttemptAt, row.attempts + 1);
}

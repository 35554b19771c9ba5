/**
 * §7 lifecycle: the one compare-and-set. Every terminal transition of an ask/task — resolve, cancel,
 * expiry — goes through `commitTerminal`, which is a single conditional UPDATE against the time the
 * caller passes in (from lib/clock, never the database's now()). In the same transaction it writes
 * the Resolution, the audit event, the push-delivery obligation (§3.1) and a NOTIFY that wakes
 * long-poll waiters on commit. First terminal wins; a loser writes nothing.
 */
import type { Message as MessageRow } from "../generated/prisma/client";
import { messageResolved } from "../audit/events";
import { writeAudit } from "../audit/write";
import type { Tx } from "../db";
import { mintId } from "../protocol/ids";
import type { Resolution } from "../protocol/lifecycle";
import { callbackOf, type Message } from "../protocol/message";
import { publishInboxChange } from "../pubsub/inbox";
import { publishTerminal } from "../pubsub/terminal";

export type TerminalKind = "resolve" | "cancel" | "expire";

export interface TerminalOutcome {
  resolution: Resolution;
  actor: string;
  defaulted: boolean;
  /** The §6 `response` object, or null when the Response carries none (e.g. an expired task). */
  response: Record<string, unknown> | null;
  /** How a person's answer reached the Hub when not the inbox or /v1 (#16: "email"); audited. */
  channel?: string;
}

export interface CommitResult {
  won: boolean;
  resolutionId?: string;
  /** The push obligation written with the transition; enqueue it once the transaction commits. */
  deliveryId?: string;
  /** The message that went terminal (when won), for what follows the commit (after-terminal.ts). */
  messageId?: string;
}

/**
 * The §7 guard, as SQL conditions on the row:
 * - resolve/cancel win only while open AND (no expires_at OR now <= expires_at): an answer at
 *   exactly expires_at beats the default, a cancel strictly after it loses to expiry;
 * - expiry wins only while open AND expires_at < now.
 */
function guard(kind: TerminalKind, now: Date) {
  if (kind === "expire") return { status: "open", expiresAt: { lt: now } };
  return { status: "open", OR: [{ expiresAt: null }, { expiresAt: { gte: now } }] };
}

export async function commitTerminal(
  tx: Tx,
  row: Pick<MessageRow, "id" | "accountId" | "callbackUrl">,
  envelope: Message,
  kind: TerminalKind,
  outcome: TerminalOutcome,
  now: Date,
): Promise<CommitResult> {
  const cas = await tx.message.updateMany({
    where: { id: row.id, ...guard(kind, now) },
    data: { status: outcome.resolution, statusChangedAt: now, terminalAt: now },
  });
  if (cas.count !== 1) return { won: false };

  const resolutionId = mintId("resolution");
  await tx.resolution.create({
    data: {
      id: resolutionId,
      messageId: row.id,
      resolution: outcome.resolution,
      actor: outcome.actor,
      defaulted: outcome.defaulted,
      response: outcome.response === null ? null : JSON.stringify(outcome.response),
      resolvedAt: now,
    },
  });
  await writeAudit(tx, {
    accountId: row.accountId,
    messageId: row.id,
    actor: outcome.actor,
    event: messageResolved(outcome.resolution),
    detail: {
      resolution_id: resolutionId,
      via: kind,
      defaulted: outcome.defaulted,
      ...(outcome.channel ? { channel: outcome.channel } : {}),
    },
    at: now,
  });
  // §8.3 / §3.1: the push obligation commits with the transition it reports.
  const callback = callbackOf(envelope);
  let deliveryId: string | undefined;
  if (callback?.mode === "push" && row.callbackUrl) {
    deliveryId = mintId("delivery");
    await tx.pushDelivery.create({
      data: {
        id: deliveryId,
        messageId: row.id,
        resolutionId,
        callbackUrl: row.callbackUrl,
        nextAttemptAt: now,
        cycleStartedAt: now,
        createdAt: now,
        updatedAt: now,
      },
    });
  }
  // #16: the item's notifications not yet sent (a reminder, an escalation, a mail held by quiet
  // hours) are cancelled with the transition — a settled item asks no one to act. Statuses are
  // lib/notifications/send.ts's; `not_open` is its error class for the same case at send time.
  await tx.notification.updateMany({
    where: { messageId: row.id, status: "pending" },
    data: { status: "cancelled", lastErrorClass: "not_open", updatedAt: now },
  });
  await publishTerminal(tx, row.id);
  await publishInboxChange(tx, row.accountId, row.id);
  return { won: true, resolutionId, deliveryId, messageId: row.id };
}

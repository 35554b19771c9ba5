/**
 * Sending one notification row (#16, docs/notifications.md): each due row is claimed (pending →
 * sending, with a lease) by one conditional UPDATE before anything is sent, and a `sent` row is
 * final, so two workers never send the same row. A row left `sending` past its lease was
 * interrupted (the worker died mid-send): it is logged as such and sent again with the same
 * Message-ID — at-least-once across the window between the SMTP server's acceptance and our UPDATE
 * (docs/decisions.md "Notifications"). Every send re-checks that the item is open and that the
 * person may still resolve it (an escalation: still has a seat), and mints that mail's one-click
 * answer links only for a person who may resolve the item (answer-tokens.ts).
 */
import { clock } from "../clock";
import { db } from "../db";
import { env, notifyRetryPolicy } from "../env";
import { log } from "../log";
import { humanResolveRefusal } from "../messages/access";
import { envelopeOf } from "../messages/record";
import { seatFor } from "../principals/seats";
import { enqueueNotify } from "../queue/enqueue";
import { mintAnswerLinks } from "./answer-tokens";
import { composeMail } from "./compose";
import { KIND_NEW, KINDS, type Kind } from "./kinds";
import { recipientRefusal } from "./reminders";
import { sendMail, type SendResult } from "./smtp";

/** How long a claim holds: longer than any one SMTP exchange can take (three timeouts, plus slack). */
function leaseMs(): number {
  return 2 * env().MA2H_SMTP_TIMEOUT_MS + 1000;
}

/** A row left `sending` past its lease: log the interruption and make it due again. */
async function recoverInterrupted(id: string, now: Date): Promise<void> {
  const row = await db().notification.findUnique({ where: { id } });
  if (row?.status !== "sending" || !row.leaseUntil || row.leaseUntil >= now) return;
  await db().$transaction(async (tx) => {
    const res = await tx.notification.updateMany({
      where: { id, status: "sending", leaseUntil: row.leaseUntil },
      data: { status: "pending", leaseUntil: null, nextAttemptAt: now, lastErrorClass: "interrupted", updatedAt: now },
    });
    if (res.count !== 1) return;
    await tx.notificationAttempt.create({
      data: {
        notificationId: id,
        attempt: row.attempts,
        channel: row.channel,
        userId: row.userId,
        outcome: "interrupted",
        errorClass: "interrupted",
        at: now,
      },
    });
  });
  log.warn("notification send was interrupted; sending again", { notification_id: id, attempt: row.attempts });
}

/** Claims one due row for one attempt; null when it is not due, not pending, or taken. */
async function claim(id: string, now: Date): Promise<number | null> {
  const res = await db().notification.updateMany({
    where: { id, status: "pending", nextAttemptAt: { lte: new Date(now.getTime() + 250) } },
    data: {
      status: "sending",
      leaseUntil: new Date(now.getTime() + leaseMs()),
      attempts: { increment: 1 },
      updatedAt: now,
    },
  });
  if (res.count !== 1) return null;
  const row = await db().notification.findUniqueOrThrow({ where: { id }, select: { attempts: true } });
  return row.attempts;
}

type Finish =
  | { status: "sent"; result: SendResult }
  | { status: "pending"; result: SendResult; nextAt: Date }
  | { status: "failed" | "cancelled"; result: SendResult | null; errorClass: string };

/** Records the attempt and the row's new state in one transaction; only the claim's holder may. */
async function finish(id: string, attempt: number, f: Finish): Promise<void> {
  const now = clock.now();
  const errorClass =
    f.status === "sent"
      ? null
      : f.result && !f.result.ok
        ? f.result.errorClass
        : ((f as { errorClass?: string }).errorClass ?? null);
  const row = await db().notification.findUniqueOrThrow({ where: { id }, select: { channel: true, userId: true } });
  await db().$transaction(async (tx) => {
    const res = await tx.notification.updateMany({
      where: { id, status: "sending", attempts: attempt },
      data: {
        status: f.status,
        leaseUntil: null,
        updatedAt: now,
        lastErrorClass: errorClass,
        ...(f.status === "sent" ? { sentAt: now } : {}),
        ...(f.status === "pending" ? { nextAttemptAt: f.nextAt } : {}),
      },
    });
    if (res.count !== 1) return;
    if (f.status === "cancelled") return; // not an attempt: nothing was sent
    await tx.notificationAttempt.create({
      data: {
        notificationId: id,
        attempt,
        channel: row.channel,
        userId: row.userId,
        outcome: f.status === "pending" ? "retry" : f.status,
        errorClass,
        responseCode: f.result?.responseCode ?? null,
        at: now,
      },
    });
  });
}

/** One attempt at one notification row. */
export async function sendOne(id: string): Promise<void> {
  const now = clock.now();
  await recoverInterrupted(id, now);
  const attempt = await claim(id, now);
  if (attempt === null) return;
  const n = await db().notification.findUniqueOrThrow({
    where: { id },
    include: {
      user: { select: { email: true } },
      message: {
        select: {
          id: true,
          accountId: true,
          title: true,
          priority: true,
          sensitive: true,
          status: true,
          envelope: true,
          createdAt: true,
          expiresAt: true,
        },
      },
    },
  });
  // Only an open item asks anyone to act; one resolved, expired or cancelled meanwhile is not mailed.
  if (n.message.status !== "open")
    return finish(id, attempt, { status: "cancelled", result: null, errorClass: "not_open" });
  // Re-checked at send time: a person whose seat was removed or narrowed since the fan-out is not
  // told — by the kind's rule: an escalation needs an owner/admin seat, the others the resolver right.
  const envelope = envelopeOf(n.message);
  const kind: Kind = (KINDS as readonly string[]).includes(n.kind) ? (n.kind as Kind) : KIND_NEW;
  const seat = await seatFor(n.userId, n.message.accountId);
  const refusal = recipientRefusal(kind, seat, envelope);
  if (refusal !== null) return finish(id, attempt, { status: "cancelled", result: null, errorClass: refusal });
  // Answer links only for a person who may resolve it (an escalated owner/admin may not), minted for
  // this attempt (answer-tokens.ts).
  const mayResolve = seat !== null && humanResolveRefusal(seat, envelope) === null;
  const answerLinks = mayResolve ? await mintAnswerLinks(n, n.message, envelope, env().publicUrl, now) : [];
  const mail = composeMail(n.message, envelope, env().publicUrl, { kind, answerLinks });
  const host = new URL(env().publicUrl).hostname || "ma2h.invalid";
  const result = await sendMail(n.user.email, mail, `<${n.id}@${host}>`);
  if (result.ok) {
    log.info("notification sent", { notification_id: id, message_id: n.messageId, channel: n.channel, attempt });
    return finish(id, attempt, { status: "sent", result });
  }
  const policy = notifyRetryPolicy();
  log.warn("notification attempt failed", {
    notification_id: id,
    message_id: n.messageId,
    channel: n.channel,
    attempt,
    error_class: result.errorClass,
    response_code: result.responseCode,
  });
  if (result.transient && attempt < policy.maxAttempts) {
    const nextAt = new Date(clock.now().getTime() + policy.baseMs * 2 ** (attempt - 1));
    await finish(id, attempt, { status: "pending", result, nextAt });
    await enqueueNotify(n.messageId, `retry-${id}-${attempt + 1}`, nextAt);
    return;
  }
  await finish(id, attempt, { status: "failed", result, errorClass: result.errorClass });
}

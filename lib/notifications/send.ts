/**
 * Sending one notification row (#16, docs/notifications.md): the row is claimed first, only the
 * claim's holder records its outcome, a row interrupted mid-send is recovered and sent again with
 * the same Message-ID, and a failure is retried or failed — all by claims.ts, as a batch of one.
 * Every send re-checks that the item is open and that the person may still resolve it (an
 * escalation: still has a seat), and mints that mail's one-click answer links only for a person
 * who may resolve the item (answer-tokens.ts).
 */
import { clock } from "../clock";
import { db } from "../db";
import { env } from "../env";
import { log } from "../log";
import { humanResolveRefusal } from "../messages/access";
import { envelopeOf } from "../messages/record";
import { seatFor } from "../principals/seats";
import { mintAnswerLinks } from "./answer-tokens";
import { claim, failOrRetry, finish, recoverInterrupted } from "./claims";
import { composeMail } from "./compose";
import { KIND_NEW, KINDS, type Kind } from "./kinds";
import { recipientRefusal } from "./recipients";
import { messageIdFor, sendMail } from "./smtp";

/** One attempt at one notification row. */
export async function sendOne(id: string): Promise<void> {
  const now = clock.now();
  await recoverInterrupted({ id }, now);
  if (!(await claim([id], now))) return;
  // The claimed row: its `batchId` and `attempts` are this attempt's claim (claims.ts).
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
  const attempt = n.attempts;
  // Only an open item asks anyone to act; one resolved, expired or cancelled meanwhile is not mailed.
  if (n.message.status !== "open") return finish([n], { status: "cancelled", result: null, errorClass: "not_open" });
  // Re-checked at send time: a person whose seat was removed or narrowed since the fan-out is not
  // told — by the kind's rule: an escalation needs an owner/admin seat, the others the resolver right.
  const envelope = envelopeOf(n.message);
  const kind: Kind = (KINDS as readonly string[]).includes(n.kind) ? (n.kind as Kind) : KIND_NEW;
  const seat = await seatFor(n.userId, n.message.accountId);
  const refusal = recipientRefusal(kind, seat, envelope);
  if (refusal !== null) return finish([n], { status: "cancelled", result: null, errorClass: refusal });
  // Answer links only for a person who may resolve it (an escalated owner/admin may not), minted for
  // this attempt (answer-tokens.ts).
  const mayResolve = seat !== null && humanResolveRefusal(seat, envelope) === null;
  const answerLinks = mayResolve ? await mintAnswerLinks(n, n.message, envelope, env().publicUrl, now) : [];
  const mail = composeMail(n.message, envelope, env().publicUrl, { kind, answerLinks });
  // The row's own id, not the batch's: a resend after an interruption is claimed under a new batch.
  const result = await sendMail(n.user.email, mail, messageIdFor(n.id));
  if (result.ok) {
    log.info("notification sent", { notification_id: id, message_id: n.messageId, channel: n.channel, attempt });
    return finish([n], { status: "sent", result });
  }
  log.warn("notification attempt failed", {
    notification_id: id,
    message_id: n.messageId,
    channel: n.channel,
    attempt,
    error_class: result.errorClass,
    response_code: result.responseCode,
  });
  await failOrRetry([n], result);
}

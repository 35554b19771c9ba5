/**
 * Sending one notification row (docs/notifications.md): the row is claimed first, only the
 * claim's holder records its outcome, a row interrupted mid-send is recovered and sent again with
 * the same Message-ID, and a failure is retried or failed — all by claims.ts, as a batch of one.
 * Every send re-checks that the item is open and that the person may still resolve it (an
 * escalation: still has a seat), then hands the row to its channel's sender (channels.ts: email,
 * Slack or push), telling it whether the person may resolve the item (answer links and buttons are
 * offered only then).
 */
import { routingOf } from "../policies/routing";
import { clock } from "../clock";
import { db } from "../db";
import { log } from "../log";
import { humanResolveRefusal } from "../messages/access";
import { envelopeOf } from "../messages/record";
import { seatFor } from "../principals/seats";
import { senderFor } from "./channels";
import { claim, failOrRetry, finish, recoverInterrupted } from "./claims";
import { CHANNEL_EMAIL, CHANNELS, type Channel, KIND_NEW, KINDS, type Kind } from "./kinds";
import { recipientRefusal } from "./recipients";

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
          routing: true,
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
  const routing = routingOf(n.message);
  const refusal = recipientRefusal(kind, seat, envelope, routing);
  if (refusal !== null) return finish([n], { status: "cancelled", result: null, errorClass: refusal });
  // The channel's sender (channels.ts); answer links or buttons only for a person who may resolve
  // it (an escalated owner/admin may not).
  const mayResolve = seat !== null && humanResolveRefusal(seat, envelope, routing) === null;
  const channel = (CHANNELS as readonly string[]).includes(n.channel) ? (n.channel as Channel) : CHANNEL_EMAIL;
  const result = await senderFor(channel).send({
    row: n,
    user: n.user,
    message: n.message,
    envelope,
    kind,
    mayResolve,
    routing,
    now,
  });
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

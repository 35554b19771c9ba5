/**
 * Sending one notification row (docs/notifications.md): the row is claimed first, only the
 * claim's holder records its outcome, a row interrupted mid-send is recovered and sent again with
 * the same Message-ID, and a failure is retried or failed — all by claims.ts, as a batch of one.
 * Every send re-checks that the item is open and that the person may still resolve it (an
 * escalation: still has a seat), then hands the row to its channel's sender (channels.ts: email,
 * Slack or push), telling it whether the person may resolve the item (answer links and buttons are
 * offered only then). Under a quorum (docs/policies.md "Quorum") the person's eligibility is read as
 * the vote counts it now: one no longer counted is not told (an escalation still reaches an owner or
 * admin, with no answer), and one who has already voted gets no reminder.
 */
import { routingOf } from "../policies/routing";
import { clock } from "../clock";
import { db } from "../db";
import { log } from "../log";
import { envelopeOf } from "../messages/record";
import { seatFor } from "../principals/seats";
import { senderFor } from "./channels";
import { claim, failOrRetry, finish, recoverInterrupted } from "./claims";
import {
  CHANNEL_EMAIL,
  CHANNELS,
  type Channel,
  KIND_ESCALATION,
  KIND_NEW,
  KIND_REMINDER,
  KINDS,
  type Kind,
} from "./kinds";
import { answerRefusal, recipientRefusal } from "./recipients";
import { toldAsDelegate } from "../messages/access";

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
          agentRowId: true,
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
  // it (an escalated owner/admin may not; nor, under a quorum, one the vote no longer counts).
  const mayResolve = (await answerRefusal(seat, n.message, envelope, routing)) === null;
  // A delegate the ask's allowed_resolvers does not name is told, without answers (docs/policies.md "Delegation").
  if (!mayResolve && kind !== KIND_ESCALATION && !(seat !== null && toldAsDelegate(seat, envelope, routing)))
    return finish([n], { status: "cancelled", result: null, errorClass: "not_resolver" });
  // A reminder is for those the item still waits on: under a quorum, not one whose vote is in.
  if (kind === KIND_REMINDER && routing?.quorum && seat !== null) {
    const voted = await db().approvalVote.count({ where: { messageId: n.messageId, handle: seat.handle } });
    if (voted > 0) return finish([n], { status: "cancelled", result: null, errorClass: "voted" });
  }
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

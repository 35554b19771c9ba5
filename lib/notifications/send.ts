/**
 * Sending an item's notification rows, each on its own (docs/notifications.md): each row is claimed
 * first (a few rows per statement, each its own attempt), only the claim's holder records its
 * outcome, a row interrupted mid-send is recovered and sent again with the same Message-ID, and a
 * failure is retried or failed — by claims.ts.
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
import { senderFor } from "./channels";
import { mintId } from "@ma2h/protocol/ids";
import { ROLES, type Role, type Seat } from "../principals/types";
import {
  EARLY_MS,
  type Finish,
  failureFinish,
  finishEach,
  leaseMs,
  recoverInterrupted,
  wakeForRetries,
} from "./claims";
import { type ClaimedSend, claimSends } from "./send.sql";
import type { SendResult } from "./send-result";
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

/** Rows claimed by one statement and sent together: their sends run at once (SMTP bounds its own, smtp.ts). */
const CLAIM_CHUNK = 16;

/**
 * Every due (or interrupted) row of the item, sent on its own: claimed a few at a time (one
 * statement, send.sql.ts, which also reads each person's address and seat, and the item), each
 * attempt decided and sent, the chunk's outcomes recorded by one statement (claims.ts
 * `finishEach`). A row claimed once is not claimed again by this call (a retry waits for its wake-up).
 * Returns the channels of the rows it attempted.
 */
export async function sendDueRows(messageId: string, skipEmail: boolean): Promise<{ channels: Set<string> }> {
  const channels = new Set<string>();
  const done: string[] = [];
  await recoverInterrupted({ messageId, digest: false }, clock.now());
  for (;;) {
    const now = clock.now();
    const claimed = await claimSends(messageId, {
      dueBy: new Date(now.getTime() + EARLY_MS),
      skipChannels: skipEmail ? [CHANNEL_EMAIL] : [],
      skipIds: done,
      limit: CLAIM_CHUNK,
      batchId: mintId("notification"),
      leaseUntil: new Date(now.getTime() + leaseMs()),
      now,
    });
    if (claimed.length === 0) break;
    for (const c of claimed) {
      done.push(c.id);
      channels.add(c.channel);
    }
    // Each attempt's outcome is recorded even if another's threw (a database error minting links,
    // say): that one is left to its lease, recovered as interrupted and sent again, as after a crash.
    const settled = await Promise.allSettled(claimed.map((c) => attempt(c, now)));
    const entries = claimed.flatMap((row, i) => {
      const s = settled[i];
      return s?.status === "fulfilled" ? [{ row, finish: s.value }] : [];
    });
    await finishEach(entries);
    await wakeForRetries(entries);
    const failed = settled.find((s) => s.status === "rejected");
    if (failed) throw failed.reason;
    if (claimed.length < CLAIM_CHUNK) break;
  }
  return { channels };
}

/** One attempt at one claimed row: what it comes to (logged here, recorded by the caller). */
async function attempt(c: ClaimedSend, now: Date): Promise<Finish> {
  const attemptNo = c.attempts;
  // Only an open item asks anyone to act; one resolved, expired or cancelled meanwhile is not mailed.
  if (c.status !== "open") return { status: "cancelled", result: null, errorClass: "not_open" };
  // Re-checked at send time: a person whose seat was removed or narrowed since the fan-out is not
  // told — by the kind's rule: an escalation needs an owner/admin seat, the others the resolver right.
  const message = {
    id: c.messageId,
    accountId: c.accountId,
    title: c.title,
    priority: c.priority,
    sensitive: c.sensitive,
    status: c.status,
    envelope: c.envelope,
    createdAt: c.createdAt,
    expiresAt: c.expiresAt,
    routing: c.routing,
    agentRowId: c.agentRowId,
  };
  const envelope = envelopeOf(message);
  const kind: Kind = (KINDS as readonly string[]).includes(c.kind) ? (c.kind as Kind) : KIND_NEW;
  const seat: Seat | null =
    c.seatHandle !== null && c.seatRole !== null && (ROLES as readonly string[]).includes(c.seatRole)
      ? { accountId: c.accountId, handle: c.seatHandle, role: c.seatRole as Role, delegators: c.seatDelegators ?? [] }
      : null;
  const routing = routingOf(message);
  const refusal = recipientRefusal(kind, seat, envelope, routing);
  if (refusal !== null) return { status: "cancelled", result: null, errorClass: refusal };
  // The channel's sender (channels.ts); answer links or buttons only for a person who may resolve
  // it (an escalated owner/admin may not; nor, under a quorum, one the vote no longer counts).
  const mayResolve = (await answerRefusal(seat, message, envelope, routing)) === null;
  // A delegate the ask's allowed_resolvers does not name is told, without answers (docs/policies.md "Delegation").
  if (!mayResolve && kind !== KIND_ESCALATION && !(seat !== null && toldAsDelegate(seat, envelope, routing)))
    return { status: "cancelled", result: null, errorClass: "not_resolver" };
  // A reminder is for those the item still waits on: under a quorum, not one whose vote is in.
  if (kind === KIND_REMINDER && routing?.quorum && seat !== null) {
    const voted = await db().approvalVote.count({ where: { messageId: c.messageId, handle: seat.handle } });
    if (voted > 0) return { status: "cancelled", result: null, errorClass: "voted" };
  }
  const channel = (CHANNELS as readonly string[]).includes(c.channel) ? (c.channel as Channel) : CHANNEL_EMAIL;
  const row = {
    id: c.id,
    messageId: c.messageId,
    userId: c.userId,
    channel: c.channel,
    attempts: c.attempts,
    batchId: c.batchId,
  };
  const result: SendResult = await senderFor(channel).send({
    row,
    user: { email: c.email },
    message,
    envelope,
    kind,
    mayResolve,
    routing,
    now,
  });
  if (result.ok) {
    log.info("notification sent", {
      notification_id: c.id,
      message_id: c.messageId,
      channel: c.channel,
      attempt: attemptNo,
    });
    return { status: "sent", result };
  }
  log.warn("notification attempt failed", {
    notification_id: c.id,
    message_id: c.messageId,
    channel: c.channel,
    attempt: attemptNo,
    error_class: result.errorClass,
    response_code: result.responseCode,
  });
  return failureFinish(c, result);
}

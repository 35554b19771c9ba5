/**
 * Slack posts of items, durable (docs/notifications.md "Slack"). PostgreSQL's `slack_posts`
 * rows are the obligation; the notification job (fanout.ts `processNotifications`) does the work
 * and its sweep re-finds whatever a lost job or a killed worker left:
 * - the channel post: the fan-out's statement (fanout.sql.ts) makes ONE pending row per new ask/task
 *   when the account has a channel; `sendChannelPost` claims it under a lease (one
 *   conditional UPDATE, as claims.ts does for notification rows), posts, and records `(channel, ts)`;
 *   a transient failure is retried with the notification backoff, a permanent one is `failed`;
 * - direct messages are notification rows (channel.ts); each post is recorded here once posted;
 * - `refreshPosts`: every posted post whose shown status differs from its item's status is updated
 *   (chat.update) to the settled form — after any terminal commit (after-terminal.ts wakes the job)
 *   and from the sweep, so an update lost to a crash or a Slack outage still happens;
 * - `refreshApprovals`: while an ask a quorum rule routed is open, every posted post whose approvals
 *   line (`shownApprovals`) differs from the count now is updated to show it, its buttons kept for
 *   whoever may still answer — after a vote by any channel (the vote wakes the job,
 *   lib/messages/after-terminal.ts `afterVote`) and on every run of the job; best effort: a lost
 *   update leaves a stale count until the next vote or the settle, never a wrong outcome.
 */
import { clock } from "../../clock";
import { db } from "../../db";
import { env } from "../../env";
import { log } from "../../log";
import { itemUrl } from "../text";
import { mintId } from "@ma2h/protocol/ids";
import { retryOrGiveUp } from "../post-retry";
import { failureOf, slackClient } from "./api";
import { envelopeOf } from "../../messages/record";
import { routingOf } from "../../policies/routing";
import { seatFor } from "../../principals/seats";
import { KIND_ESCALATION, KINDS, type Kind } from "../kinds";
import { answerRefusal } from "../recipients";
import { itemMessage, KIND_NOTES, type PostItem, type PostState } from "./blocks";
import { openConnection } from "./connection";
import { postStateOf } from "./item-view";

export const CHANNEL_SLOT = "channel";

/** A claim outlives any one Slack call (each bounded by MA2H_SLACK_TIMEOUT_MS). */
function leaseMs(): number {
  return 2 * env().MA2H_SLACK_TIMEOUT_MS + 1000;
}

/** Posts one item's message; `(channel, ts)` of the post, or the failure. */
export async function postMessage(
  botToken: string,
  channel: string,
  message: { text: string; blocks: Record<string, unknown>[] },
): Promise<{ ok: true; channel: string; ts: string } | ReturnType<typeof failureOf>> {
  try {
    const res = await (await slackClient(botToken)).chat.postMessage({
      channel,
      text: message.text,
      blocks: message.blocks as never,
      unfurl_links: false,
      unfurl_media: false,
    });
    if (typeof res.ts !== "string" || typeof res.channel !== "string")
      return { ok: false, transient: false, errorClass: "slack_bad_reply", responseCode: 200 };
    return { ok: true, channel: res.channel, ts: res.ts };
  } catch (err) {
    return failureOf(err);
  }
}

/** Records a posted direct message (the notification row's slot) so it is updated when the item settles. */
export async function recordDirectMessage(
  p: {
    accountId: string;
    messageId: string;
    notificationId: string;
    channel: string;
    ts: string;
    /** The approvals line the post shows (a quorum's item), or null. */
    approvals: string | null;
  },
  now: Date,
): Promise<void> {
  const data = {
    channelId: p.channel,
    ts: p.ts,
    status: "posted",
    shownStatus: "open",
    shownApprovals: p.approvals,
    updatedAt: now,
  };
  await db().slackPost.upsert({
    where: { messageId_slot: { messageId: p.messageId, slot: p.notificationId } },
    create: {
      id: mintId("slackPost"),
      accountId: p.accountId,
      messageId: p.messageId,
      slot: p.notificationId,
      nextAttemptAt: now,
      createdAt: now,
      ...data,
    },
    update: data,
  });
}

/**
 * The channel post of the item, if due (or interrupted): claimed, posted, recorded. Returns whether
 * it was posted now (the caller then shows it settled if the item settled meanwhile).
 */
async function sendChannelPost(
  messageId: string,
  post: { id: string; accountId: string; attempts: number; status: string },
): Promise<boolean> {
  const now = clock.now();
  if (post.status !== "pending" && post.status !== "sending") return false;
  const claimed = await db().slackPost.updateMany({
    where: {
      id: post.id,
      OR: [
        { status: "pending", nextAttemptAt: { lte: now } },
        { status: "sending", leaseUntil: { lt: now } },
      ],
    },
    data: {
      status: "sending",
      attempts: { increment: 1 },
      leaseUntil: new Date(now.getTime() + leaseMs()),
      updatedAt: now,
    },
  });
  if (claimed.count !== 1) return false;
  const attempts = post.attempts + 1;
  const held = { id: post.id, status: "sending", attempts };
  const view = await postStateOf(messageId);
  const conn = await openConnection(post.accountId);
  if (view?.state.status !== "open" || !conn?.channelId) {
    // Settled before it was posted, or the channel was turned off: nothing to tell the channel.
    await db().slackPost.updateMany({
      where: held,
      data: {
        status: "cancelled",
        leaseUntil: null,
        lastErrorClass: view?.state.status !== "open" ? "not_open" : "slack_off",
        updatedAt: now,
      },
    });
    return false;
  }
  // One post for the whole channel, so its buttons are offered to every reader: a click is checked
  // against the clicker's own right (interactions.ts), and a routed ask's post names who is asked.
  const message = itemMessage(view.item, {
    inboxUrl: itemUrl(env().publicUrl, messageId),
    mayResolve: true,
    state: view.state,
  });
  const result = await postMessage(conn.botToken, conn.channelId, message);
  const after = clock.now();
  if (result.ok) {
    await db().slackPost.updateMany({
      where: held,
      data: {
        status: "posted",
        channelId: result.channel,
        ts: result.ts,
        shownApprovals:
          view.state.status === "open" ? ((view.state as { approvals?: string }).approvals ?? null) : null,
        leaseUntil: null,
        lastErrorClass: null,
        updatedAt: after,
      },
    });
    log.info("slack channel post sent", { message_id: messageId, attempt: attempts });
    // Settled while we posted: slackWork shows it now rather than at the next sweep.
    return true;
  }
  log.warn("slack channel post failed", { message_id: messageId, attempt: attempts, error_class: result.errorClass });
  await retryOrGiveUp({
    messageId,
    attempts,
    failure: result,
    at: after,
    retryKey: "slack-retry",
    update: (data) => db().slackPost.updateMany({ where: held, data }),
  });
  return false;
}

/** The settled form of every post of the item that still shows it open. */
export async function refreshPosts(messageId: string): Promise<void> {
  const stale = await db().slackPost.findMany({
    where: { messageId, status: "posted", shownStatus: "open", ts: { not: null } },
  });
  if (stale.length === 0) return;
  const view = await postStateOf(messageId);
  if (!view || view.state.status === "open") return;
  const conn = await openConnection(stale[0]?.accountId as string);
  const shown = view.state.status;
  for (const post of stale) {
    const res = conn ? await updateMessage(conn.botToken, post.channelId as string, post.ts as string, view) : null;
    // A transient failure leaves the post stale for the sweep; a permanent one (the message was
    // deleted in Slack, the app disconnected) is given up, with its class kept.
    if (res && !res.ok && res.transient) {
      log.warn("slack post update failed; the sweep retries", { message_id: messageId, error_class: res.errorClass });
      continue;
    }
    await db().slackPost.updateMany({
      where: { id: post.id, shownStatus: "open" },
      data: {
        shownStatus: shown,
        lastErrorClass: res === null ? "slack_off" : res.ok ? null : res.errorClass,
        updatedAt: clock.now(),
      },
    });
  }
}

/**
 * The approvals line of every post of an open quorum item that shows another (see the header). A
 * direct message keeps its note and offers its buttons only to a person who may still answer
 * (an escalated owner/admin never may); the channel post keeps them for every reader, as posted.
 */
export async function refreshApprovals(messageId: string): Promise<void> {
  const posts = await db().slackPost.findMany({
    where: { messageId, status: "posted", shownStatus: "open", ts: { not: null } },
  });
  if (posts.length === 0) return;
  const view = await postStateOf(messageId);
  if (view?.state.status !== "open") return; // settled: refreshPosts shows the outcome
  const line = (view.state as { approvals?: string }).approvals ?? null;
  const stale = posts.filter((p) => p.shownApprovals !== line);
  if (line === null || stale.length === 0) return;
  const conn = await openConnection(stale[0]?.accountId as string);
  if (!conn) return;
  const row = await db().message.findUnique({
    where: { id: messageId },
    select: { accountId: true, agentRowId: true, envelope: true, routing: true },
  });
  if (!row) return;
  const direct = await db().notification.findMany({
    where: { id: { in: stale.filter((p) => p.slot !== CHANNEL_SLOT).map((p) => p.slot) } },
    select: { id: true, userId: true, kind: true },
  });
  for (const post of stale) {
    let mayResolve = true;
    let note: string | null = null;
    if (post.slot !== CHANNEL_SLOT) {
      const n = direct.find((d) => d.id === post.slot);
      const kind: Kind | null = (KINDS as readonly string[]).includes(n?.kind ?? "") ? (n?.kind as Kind) : null;
      note = kind ? KIND_NOTES[kind] : null;
      mayResolve =
        n !== undefined &&
        kind !== KIND_ESCALATION &&
        (await answerRefusal(await seatFor(n.userId, row.accountId), row, envelopeOf(row), routingOf(row))) === null;
    }
    const res = await updateMessage(conn.botToken, post.channelId as string, post.ts as string, view, {
      mayResolve,
      note,
    });
    if (res.ok)
      await db().slackPost.updateMany({
        where: { id: post.id, shownStatus: "open" },
        data: { shownApprovals: line, updatedAt: clock.now() },
      });
    else log.warn("slack approvals update failed", { message_id: messageId, error_class: res.errorClass });
  }
}

async function updateMessage(
  botToken: string,
  channel: string,
  ts: string,
  view: { item: PostItem; state: PostState },
  open: { mayResolve: boolean; note: string | null } = { mayResolve: false, note: null },
): Promise<{ ok: true } | ReturnType<typeof failureOf>> {
  const message = itemMessage(view.item, {
    inboxUrl: itemUrl(env().publicUrl, view.item.id),
    mayResolve: open.mayResolve,
    state: view.state,
    note: open.note,
  });
  try {
    await (await slackClient(botToken)).chat.update({
      channel,
      ts,
      text: message.text,
      blocks: message.blocks as never,
    });
    return { ok: true };
  } catch (err) {
    return failureOf(err);
  }
}

/**
 * The notification job's Slack part for one item: its channel post if due, then any refresh
 * (outcome, approvals) — read only when a post shows the item and the item has settled or counts
 * approvals: an open item without a quorum shows what every post of it shows.
 */
export async function slackWork(messageId: string): Promise<void> {
  const posts = await db().slackPost.findMany({
    where: { messageId },
    select: { id: true, accountId: true, slot: true, status: true, shownStatus: true, ts: true, attempts: true },
  });
  const channel = posts.find((p) => p.slot === CHANNEL_SLOT);
  const posted = channel ? await sendChannelPost(messageId, channel) : false;
  if (!posted && !posts.some((p) => p.status === "posted" && p.shownStatus === "open" && p.ts !== null)) return;
  const item = await db().message.findUnique({ where: { id: messageId }, select: { status: true, routing: true } });
  if (item?.status === "open" && !routingOf(item)?.quorum) return;
  await refreshPosts(messageId);
  await refreshApprovals(messageId);
}

/** For the sweep: items with a due or interrupted channel post, or a post that shows a stale status. */
export async function slackDueMessages(now: Date): Promise<string[]> {
  const [due, stale] = await Promise.all([
    db().slackPost.findMany({
      where: {
        slot: CHANNEL_SLOT,
        OR: [
          { status: "pending", nextAttemptAt: { lte: now } },
          { status: "sending", leaseUntil: { lt: now } },
        ],
      },
      select: { messageId: true },
      take: 1000,
    }),
    db().slackPost.findMany({
      where: { status: "posted", shownStatus: "open", message: { status: { not: "open" } } },
      select: { messageId: true },
      distinct: ["messageId"],
      take: 1000,
    }),
  ]);
  return [...new Set([...due, ...stale].map((p) => p.messageId))];
}

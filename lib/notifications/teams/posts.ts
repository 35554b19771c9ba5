/**
 * Teams cards of items, durable (docs/notifications.md "Microsoft Teams"), through the same
 * notification job as Slack's posts (fanout.ts `processNotifications`) and the same shape of
 * obligation (slack/posts.ts): `planTeamsChannelPost` makes ONE pending `teams_posts` row per new
 * ask/task in the fan-out transaction when the account's bot has a channel; `sendTeamsChannelPost`
 * claims it under a lease, posts the card and records the activity id (a transient failure is
 * retried with the notification backoff, a permanent one is `failed`); `refreshTeamsPosts` updates
 * every posted card whose shown status or approvals line differs from the item's — after any
 * terminal commit or vote (both wake the job), and from the sweep.
 */
import { clock } from "../../clock";
import { db, type Tx } from "../../db";
import { env, notifyRetryPolicy } from "../../env";
import { log } from "../../log";
import { mintId } from "@ma2h/protocol/ids";
import { enqueueNotify } from "../../queue/enqueue";
import { itemUrl } from "../compose";
import { postStateOf } from "../slack/item-view";
import { cardActivity, itemCard } from "./cards";
import { connectorCall } from "./connector";
import { openTeamsConnection } from "./connection";

export const TEAMS_CHANNEL_SLOT = "channel";
const CHANNEL_TYPES = new Set(["ask", "task"]);

function leaseMs(): number {
  return 3 * env().MA2H_TEAMS_TIMEOUT_MS + 1000;
}

/** In the fan-out transaction: the account's Teams channel card of a new ask/task, once. */
export async function planTeamsChannelPost(
  tx: Tx,
  message: { id: string; accountId: string; type: string },
  now: Date,
): Promise<void> {
  if (!CHANNEL_TYPES.has(message.type)) return;
  const conn = await tx.teamsConnection.findUnique({
    where: { accountId: message.accountId },
    select: { channelId: true, serviceUrl: true },
  });
  if (!conn?.channelId || !conn.serviceUrl) return;
  await tx.teamsPost.createMany({
    data: [
      {
        id: mintId("teamsPost"),
        accountId: message.accountId,
        messageId: message.id,
        slot: TEAMS_CHANNEL_SLOT,
        conversationId: conn.channelId,
        serviceUrl: conn.serviceUrl,
        nextAttemptAt: now,
        createdAt: now,
        updatedAt: now,
      },
    ],
    skipDuplicates: true,
  });
}

type View = NonNullable<Awaited<ReturnType<typeof postStateOf>>>;

function activityOf(view: View): Record<string, unknown> {
  const card = itemCard(view.item, { inboxUrl: itemUrl(env().publicUrl, view.item.id), state: view.state });
  const prefix = view.state.status === "open" ? `[${view.item.priority}]` : `[${view.state.status}]`;
  return cardActivity(card, `${prefix} ${view.item.sensitive ? "item" : view.item.title}`.slice(0, 200));
}

const approvalsOf = (view: View) =>
  view.state.status === "open" ? ((view.state as { approvals?: string }).approvals ?? null) : null;

/** The channel card of the item, if due (or interrupted): claimed, posted, recorded. */
export async function sendTeamsChannelPost(messageId: string): Promise<void> {
  const now = clock.now();
  const post = await db().teamsPost.findUnique({
    where: { messageId_slot: { messageId, slot: TEAMS_CHANNEL_SLOT } },
  });
  if (!post) return;
  const claimed = await db().teamsPost.updateMany({
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
  if (claimed.count !== 1) return;
  const attempts = post.attempts + 1;
  const held = { id: post.id, status: "sending", attempts };
  const view = await postStateOf(messageId);
  const conn = await openTeamsConnection(post.accountId);
  if (view?.state.status !== "open" || !conn) {
    await db().teamsPost.updateMany({
      where: held,
      data: {
        status: "cancelled",
        leaseUntil: null,
        lastErrorClass: view?.state.status !== "open" ? "not_open" : "teams_off",
        updatedAt: now,
      },
    });
    return;
  }
  const result = await connectorCall(conn, {
    serviceUrl: post.serviceUrl,
    conversationId: post.conversationId,
    activity: activityOf(view),
  });
  const after = clock.now();
  if (result.ok && result.id) {
    await db().teamsPost.updateMany({
      where: held,
      data: {
        status: "posted",
        activityId: result.id,
        shownApprovals: approvalsOf(view),
        leaseUntil: null,
        lastErrorClass: null,
        updatedAt: after,
      },
    });
    log.info("teams channel card sent", { message_id: messageId, attempt: attempts });
    await refreshTeamsPosts(messageId);
    return;
  }
  const failure = result.ok
    ? { transient: false, errorClass: "teams_bad_reply" }
    : { transient: result.transient, errorClass: result.errorClass };
  log.warn("teams channel card failed", { message_id: messageId, attempt: attempts, error_class: failure.errorClass });
  const policy = notifyRetryPolicy();
  if (failure.transient && attempts < policy.maxAttempts) {
    const nextAt = new Date(after.getTime() + policy.baseMs * 2 ** (attempts - 1));
    await db().teamsPost.updateMany({
      where: held,
      data: {
        status: "pending",
        nextAttemptAt: nextAt,
        leaseUntil: null,
        lastErrorClass: failure.errorClass,
        updatedAt: after,
      },
    });
    await enqueueNotify(messageId, `teams-retry-${attempts + 1}`, nextAt);
  } else {
    await db().teamsPost.updateMany({
      where: held,
      data: { status: "failed", leaseUntil: null, lastErrorClass: failure.errorClass, updatedAt: after },
    });
  }
}

/**
 * Every posted card of the item that shows another status or approvals line than the item has now is
 * updated (PUT of the activity). A transient failure leaves it for the sweep; a permanent one (the
 * card deleted in Teams, the bot disconnected) is given up with its class kept.
 */
export async function refreshTeamsPosts(messageId: string): Promise<void> {
  const posts = await db().teamsPost.findMany({
    where: { messageId, status: "posted", shownStatus: "open", activityId: { not: null } },
  });
  if (posts.length === 0) return;
  const view = await postStateOf(messageId);
  if (!view) return;
  const open = view.state.status === "open";
  const line = approvalsOf(view);
  const stale = posts.filter((p) => !open || (line !== null && p.shownApprovals !== line));
  if (stale.length === 0) return;
  const conn = await openTeamsConnection(stale[0]?.accountId as string);
  for (const post of stale) {
    const res = conn
      ? await connectorCall(conn, {
          serviceUrl: post.serviceUrl,
          conversationId: post.conversationId,
          activityId: post.activityId as string,
          activity: activityOf(view),
        })
      : null;
    if (res && !res.ok && res.transient) {
      log.warn("teams card update failed; the sweep retries", { message_id: messageId, error_class: res.errorClass });
      continue;
    }
    if (open && !res?.ok) continue; // an approvals line is best effort: the next vote or the settle shows it
    await db().teamsPost.updateMany({
      where: { id: post.id, shownStatus: "open" },
      data: open
        ? { shownApprovals: line, updatedAt: clock.now() }
        : {
            shownStatus: view.state.status,
            lastErrorClass: res === null ? "teams_off" : res.ok ? null : res.errorClass,
            updatedAt: clock.now(),
          },
    });
  }
}

/** The notification job's Teams part for one item: its channel card if due, then any refresh. */
export async function teamsWork(messageId: string): Promise<void> {
  await sendTeamsChannelPost(messageId);
  await refreshTeamsPosts(messageId);
}

/** For the sweep: items with a due or interrupted channel card, or a card that shows a stale status. */
export async function teamsDueMessages(now: Date): Promise<string[]> {
  const [due, stale] = await Promise.all([
    db().teamsPost.findMany({
      where: {
        OR: [
          { status: "pending", nextAttemptAt: { lte: now } },
          { status: "sending", leaseUntil: { lt: now } },
        ],
      },
      select: { messageId: true },
      take: 1000,
    }),
    db().teamsPost.findMany({
      where: { status: "posted", shownStatus: "open", message: { status: { not: "open" } } },
      select: { messageId: true },
      distinct: ["messageId"],
      take: 1000,
    }),
  ]);
  return [...new Set([...due, ...stale].map((p) => p.messageId))];
}

/**
 * Teams cards of items, durable (docs/notifications.md "Microsoft Teams"), through the same
 * notification job as Slack's posts (fanout.ts `processNotifications`) and the same shape of
 * obligation (slack/posts.ts): the fan-out's statement (fanout.sql.ts) makes ONE pending
 * `teams_posts` row per new ask/task when the account's bot has a channel; `sendTeamsChannelPost`
 * claims it under a lease, posts the card and records the activity id (a transient failure is
 * retried with the notification backoff, a permanent one is `failed`); `refreshTeamsPosts` updates
 * every posted card whose shown status or approvals line differs from the item's — after any
 * terminal commit or vote (both wake the job), and from the sweep.
 */
import { clock } from "../../clock";
import { db } from "../../db";
import { env } from "../../env";
import { log } from "../../log";
import { mintId } from "@ma2h/protocol/ids";
import { retryOrGiveUp } from "../post-retry";
import { itemUrl } from "../text";
import { postStateOf } from "../slack/item-view";
import { cardActivity, itemCard } from "./cards";
import { envelopeOf } from "../../messages/record";
import { routingOf } from "../../policies/routing";
import { seatFor } from "../../principals/seats";
import { answerRefusal } from "../recipients";
import { connectorCall, openPersonalChat } from "./connector";
import { openTeamsConnection } from "./connection";

export const TEAMS_CHANNEL_SLOT = "channel";
const CHANNEL_TYPES = new Set(["ask", "task"]);

function leaseMs(): number {
  return 3 * env().MA2H_TEAMS_TIMEOUT_MS + 1000;
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
export async function sendTeamsPost(messageId: string, slot: string): Promise<void> {
  const now = clock.now();
  const post = await db().teamsPost.findUnique({ where: { messageId_slot: { messageId, slot } } });
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
  // A personal card's chat is opened on its first send (the Bot Connector finds an existing one).
  let conversationId = post.conversationId;
  let result: Awaited<ReturnType<typeof connectorCall>>;
  if (conversationId === null) {
    const chatUserId = await chatUserOf(post.accountId, post.slot);
    const chat = chatUserId
      ? await openPersonalChat(conn, post.serviceUrl, chatUserId)
      : ({ ok: false, transient: false, errorClass: "teams_unbound", responseCode: null } as const);
    if (chat.ok) conversationId = chat.id;
    result = chat.ok ? { ok: true, id: null } : chat;
  }
  if (conversationId !== null)
    result = await connectorCall(conn, { serviceUrl: post.serviceUrl, conversationId, activity: activityOf(view) });
  else result ??= { ok: false, transient: false, errorClass: "teams_no_chat", responseCode: null };
  const after = clock.now();
  if (result.ok && result.id) {
    await db().teamsPost.updateMany({
      where: held,
      data: {
        status: "posted",
        conversationId,
        activityId: result.id,
        shownApprovals: approvalsOf(view),
        leaseUntil: null,
        lastErrorClass: null,
        updatedAt: after,
      },
    });
    log.info("teams card sent", { message_id: messageId, slot: slotKind(slot), attempt: attempts });
    await refreshTeamsPosts(messageId);
    return;
  }
  const failure = result.ok
    ? { transient: false, errorClass: "teams_bad_reply" }
    : { transient: result.transient, errorClass: result.errorClass };
  log.warn("teams card failed", {
    message_id: messageId,
    slot: slotKind(slot),
    attempt: attempts,
    error_class: failure.errorClass,
  });
  await retryOrGiveUp({
    messageId,
    attempts,
    failure: failure,
    at: after,
    retryKey: "teams-retry",
    update: (data) => db().teamsPost.updateMany({ where: held, data }),
  });
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
          conversationId: post.conversationId as string,
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
  await planPersonalPosts(messageId);
  const due = await db().teamsPost.findMany({
    where: { messageId, status: { in: ["pending", "sending"] } },
    select: { slot: true },
  });
  for (const p of due) await sendTeamsPost(messageId, p.slot);
  await refreshTeamsPosts(messageId);
}

const PERSON_SLOT = "person:";
const slotKind = (slot: string) => (slot.startsWith(PERSON_SLOT) ? "person" : slot);

/** The `29:` id of the person a personal slot names, from their binding. */
async function chatUserOf(accountId: string, slot: string): Promise<string | null> {
  if (!slot.startsWith(PERSON_SLOT)) return null;
  const row = await db().teamsIdentity.findUnique({
    where: { accountId_userId: { accountId, userId: slot.slice(PERSON_SLOT.length) } },
    select: { chatUserId: true },
  });
  return row?.chatUserId ?? null;
}

/**
 * While a new ask or task is open and the bot sends personal cards: one pending row per bound person
 * (with a known `29:` id) who may answer it — a seat, the resolver right, and the approval policy's
 * eligibility (recipients.ts `answerRefusal`, as Slack's DMs decide their buttons). Once per person
 * (the unique slot); a person bound later gets no card for an item already out.
 */
async function planPersonalPosts(messageId: string): Promise<void> {
  const row = await db().message.findUnique({
    where: { id: messageId },
    select: { accountId: true, agentRowId: true, envelope: true, routing: true, status: true, type: true },
  });
  if (row?.status !== "open" || !CHANNEL_TYPES.has(row.type)) return;
  const conn = await db().teamsConnection.findUnique({
    where: { accountId: row.accountId },
    select: { personalMessages: true, serviceUrl: true },
  });
  if (!conn?.personalMessages || !conn.serviceUrl) return;
  const [people, planned] = await Promise.all([
    db().teamsIdentity.findMany({
      where: { accountId: row.accountId, chatUserId: { not: null } },
      select: { userId: true },
    }),
    db().teamsPost.findMany({ where: { messageId }, select: { slot: true } }),
  ]);
  const have = new Set(planned.map((p) => p.slot));
  const now = clock.now();
  const data = [];
  for (const { userId } of people) {
    if (have.has(`${PERSON_SLOT}${userId}`)) continue;
    const refusal = await answerRefusal(await seatFor(userId, row.accountId), row, envelopeOf(row), routingOf(row));
    if (refusal !== null) continue;
    data.push({
      id: mintId("teamsPost"),
      accountId: row.accountId,
      messageId,
      slot: `${PERSON_SLOT}${userId}`,
      serviceUrl: conn.serviceUrl,
      nextAttemptAt: now,
      createdAt: now,
      updatedAt: now,
    });
  }
  if (data.length > 0) await db().teamsPost.createMany({ data, skipDuplicates: true });
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

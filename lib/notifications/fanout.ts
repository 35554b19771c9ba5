/**
 * The notification machinery (docs/notifications.md). PostgreSQL rows are the obligation; a
 * `notifications.fanout` job only wakes this up, and the sweep re-finds whatever a lost job left:
 * - `fanOut`: a message's unprocessed outbox row becomes one `notifications` row per (recipient,
 *   channel, kind) — inserted with the unique key, so any number of runs create each row once;
 * - each due row is then sent by `sendOne` (send.ts) or digest.ts, claimed first (claims.ts), so
 *   none is sent twice.
 */
import { routingOf } from "../policies/routing";
import { scheduleEscalation } from "../policies/escalation";
import { clock } from "../clock";
import { db } from "../db";
import type { Prisma } from "../generated/prisma/client";
import { envelopeOf } from "../messages/record";
import { enqueueNotify } from "../queue/enqueue";
import { EARLY_MS } from "./claims";
import { CHANNEL_EMAIL, KIND_NEW } from "./kinds";
import { plannedRows } from "./planned-rows";
import type { PlanItem } from "./preferences";
import { audienceOf, stillTellable } from "./recipients";
import { followUpRows } from "./reminders";
import { sendOne } from "./send";
import { sendDueDigests, sendNotifyRows } from "./digest";
import { planChannelPost, slackDueMessages, slackWork } from "./slack/posts";
import { planTeamsChannelPost, teamsDueMessages, teamsWork } from "./teams/posts";

const SEND_PARALLELISM = 8;

/**
 * Turns the message's outbox row into notification rows; a no-op once processed. The rows are
 * planned first — the audience, each person's preferences, the account's settings, each channel's
 * reach are reads of their own — and written in one transaction that reads through its `tx` only
 * (a read through the pool while it holds a connection could wait forever for a second one).
 */
export async function fanOut(messageId: string): Promise<void> {
  const now = clock.now();
  const box = await db().notificationOutbox.findUnique({ where: { messageId }, select: { processedAt: true } });
  if (!box || box.processedAt) return;
  const planned = await db().message.findUnique({
    where: { id: messageId },
    select: {
      accountId: true,
      envelope: true,
      type: true,
      status: true,
      priority: true,
      routing: true,
      createdAt: true,
    },
  });
  let newRows: Prisma.NotificationCreateManyInput[] = [];
  if (planned && stillTellable(planned.type, planned.status)) {
    // The `new` rows: the item's audience (recipients.ts — resolvers for an ask/task, every seated
    // human for a notify), on each channel that reaches them (a channel that reaches nobody — email
    // without SMTP_URL — makes no rows: nothing would ever send them), each person's plan deciding
    // whether, when, and whether in a digest.
    const envelope = envelopeOf(planned);
    const item = { type: envelope.type, priority: planned.priority } as PlanItem;
    const people = (await audienceOf(planned.accountId, envelope, routingOf(planned))).map((r) => r.userId);
    newRows = await plannedRows({ id: messageId, ...planned }, people, KIND_NEW, item, now, now);
  }
  // Reminder and escalation rows, due later, made with the fan-out (reminders.ts).
  const followUps = await followUpRows(messageId, now);
  await db().$transaction(async (tx) => {
    const box = await tx.notificationOutbox.findUnique({ where: { messageId }, select: { processedAt: true } });
    if (!box || box.processedAt) return; // another fan-out of it committed first
    const message = await tx.message.findUnique({
      where: { id: messageId },
      select: { accountId: true, type: true, status: true },
    });
    if (message && stillTellable(message.type, message.status)) {
      await tx.notification.createMany({ data: newRows, skipDuplicates: true });
      // The account's Slack channel post of the item, an obligation of its own (slack/posts.ts).
      await planChannelPost(tx, { id: messageId, accountId: message.accountId, type: message.type }, now);
      // And its Microsoft Teams channel card (teams/posts.ts).
      await planTeamsChannelPost(tx, { id: messageId, accountId: message.accountId, type: message.type }, now);
      // Only while it is open: settled since the plan, nobody needs reminding.
      await tx.notification.createMany({ data: followUps, skipDuplicates: true });
      // The approval policy's escalation, when its rules have one (lib/policies/escalation.ts).
      if (planned)
        await scheduleEscalation(tx, { id: messageId, createdAt: planned.createdAt, routing: planned.routing });
    }
    await tx.notificationOutbox.update({ where: { messageId }, data: { processedAt: now } });
  });
}

/**
 * The job: fan the message out if not yet done, then send each of its due notifications — a
 * notify's email rows through digest.ts (a one-mail-each notify is a batch of one; digest rows wait
 * for the sweep's digest run), every other row one by one (send.ts).
 */
export async function processNotifications(messageId: string): Promise<void> {
  await fanOut(messageId);
  const message = await db().message.findUnique({ where: { id: messageId }, select: { type: true } });
  const notifyMail = message?.type === "notify";
  if (notifyMail) await sendNotifyRows(messageId);
  await sendItemRows(messageId, notifyMail);
  // The item's Slack channel post if due, and every Slack post that must show it settled.
  await slackWork(messageId);
  // The same for the item's Teams card (teams/posts.ts).
  await teamsWork(messageId);
  await wakeForNextDue(messageId);
}

/** Each due (or interrupted) row sent on its own, a few sends at a time. */
async function sendItemRows(messageId: string, skipEmail: boolean): Promise<void> {
  const now = clock.now();
  const due = await db().notification.findMany({
    where: {
      messageId,
      ...(skipEmail ? { channel: { not: CHANNEL_EMAIL } } : {}),
      digest: false, // a digest row is sent with the person's digest mail, not on its own
      OR: [
        { status: "pending", nextAttemptAt: { lte: new Date(now.getTime() + EARLY_MS) } },
        { status: "sending", leaseUntil: { lt: now } },
      ],
    },
    select: { id: true },
  });
  // A few sends (SMTP sessions, Slack or push requests) at a time, however many people one item tells.
  for (let i = 0; i < due.length; i += SEND_PARALLELISM)
    await Promise.all(due.slice(i, i + SEND_PARALLELISM).map((d) => sendOne(d.id)));
}

async function wakeForNextDue(messageId: string): Promise<void> {
  const now = clock.now();
  // A row due later (quiet hours, a reminder, a retry) gets a delayed wake-up; the sweep is the backstop.
  const next = await db().notification.findFirst({
    where: { messageId, digest: false, status: "pending", nextAttemptAt: { gt: new Date(now.getTime() + EARLY_MS) } },
    orderBy: { nextAttemptAt: "asc" },
    select: { nextAttemptAt: true },
  });
  if (next) await enqueueNotify(messageId, `at-${next.nextAttemptAt.getTime()}`, next.nextAttemptAt);
}

/**
 * The sweep: wakes the job for every message with an unprocessed outbox row, a due notification,
 * or one whose send was interrupted (its lease ran out) — so a lost job or a killed worker loses
 * nothing (§3.1).
 */
export async function sweepNotifications(): Promise<void> {
  const now = clock.now();
  const [boxes, due] = await Promise.all([
    db().notificationOutbox.findMany({
      where: { processedAt: null },
      select: { messageId: true },
      orderBy: { createdAt: "asc" },
      take: 1000,
    }),
    db().notification.findMany({
      where: {
        digest: false,
        OR: [
          { status: "pending", nextAttemptAt: { lte: now } },
          { status: "sending", leaseUntil: { lt: now } },
        ],
      },
      select: { messageId: true },
      distinct: ["messageId"],
      take: 1000,
    }),
  ]);
  const ids = new Set([
    ...boxes.map((b) => b.messageId),
    ...due.map((d) => d.messageId),
    // Due or interrupted Slack channel posts, and posts still showing a settled item as open.
    ...(await slackDueMessages(now)),
    ...(await teamsDueMessages(now)),
  ]);
  for (const id of ids) await enqueueNotify(id, "sweep");
  // Digests (digest.ts): due ones are sent from here, each person's in one mail.
  await sendDueDigests();
}

/**
 * The notification machinery (docs/notifications.md). PostgreSQL rows are the obligation; a
 * `notifications.fanout` job only wakes this up, and the sweep re-finds whatever a lost job left:
 * - `fanOut`: a message's unprocessed outbox row becomes one `notifications` row per (recipient,
 *   channel, kind) — inserted with the unique key, so any number of runs create each row once;
 * - each due row is then sent by `sendDueRows` (send.ts) or digest.ts, claimed first (claims.ts), so
 *   none is sent twice.
 */
import { routingOf } from "../policies/routing";
import { scheduleEscalation } from "../policies/escalation";
import { clock } from "../clock";
import { db } from "../db";
import { envelopeOf } from "../messages/record";
import { mintId } from "@ma2h/protocol/ids";
import { enqueueNotify } from "../queue/enqueue";
import { EARLY_MS } from "./claims";
import { type FanOutWritten, type JobItem, type NewRow, readJobItem, writeFanOut } from "./fanout.sql";
import { CHANNEL_SLACK, KIND_NEW } from "./kinds";
import { planningContext, rowsFor } from "./planned-rows";
import type { PlanItem } from "./preferences";
import { adminsAmong, audienceAmong, stillTellable } from "./recipients";
import { readAccountSeats } from "./recipients.sql";
import { followUpDelays, followUpRows } from "./reminders";
import { sendDueRows } from "./send";
import { sendDueDigests, sendNotifyRows } from "./digest";
import { slackDueMessages, slackWork } from "./slack/posts";
import { teamsDueMessages, teamsWork } from "./teams/posts";

/**
 * Turns the message's outbox row into notification rows; a no-op once processed. The rows are
 * planned first from a few reads — the audience (recipients.ts), the account's admins when an
 * escalation is due, and one planning context for all of them (planned-rows.ts: the account's
 * defaults, every person's choices, each channel's reach) — and written by one statement
 * (fanout.sql.ts) that processes the outbox row, and, while the item is still tellable, inserts the
 * rows and the Slack and Teams channel posts; with the approval policy's escalation it runs in a
 * transaction with it. Returns what was written (null: nothing was this run's to do).
 */
export async function fanOut(messageId: string, read?: JobItem): Promise<FanOutWritten | null> {
  const now = clock.now();
  const planned = read ?? (await readJobItem(messageId));
  if (!planned?.toFanOut) return null;
  const rows: NewRow[] = [];
  if (stillTellable(planned.type, planned.status)) {
    // The `new` rows: the item's audience (recipients.ts — resolvers for an ask/task, every seated
    // human for a notify), on each channel that reaches them (a channel that reaches nobody — email
    // without SMTP_URL — makes no rows: nothing would ever send them), each person's plan deciding
    // whether, when, and whether in a digest; and the reminder and escalation rows, due later
    // (reminders.ts), from the same reads.
    const envelope = envelopeOf(planned);
    const item = { type: envelope.type, priority: planned.priority } as PlanItem;
    const delays = followUpDelays(planned, planned.settingsReminders ?? {});
    // One read of the account's seats: the audience, and the owners and admins an escalation goes to.
    const seats = await readAccountSeats(planned.accountId, now);
    const audience = audienceAmong(seats, planned.accountId, envelope, routingOf(planned));
    const admins = delays?.escalateMinutes != null ? adminsAmong(seats) : [];
    const people = audience.map((r) => r.userId);
    const adminIds = admins.map((r) => r.userId);
    const ctx = await planningContext(planned.accountId, [...people, ...adminIds], planned.settingsDefaults ?? {});
    const planRows = [
      ...rowsFor(ctx, messageId, people, KIND_NEW, item, now, now),
      // An open ask/task's resolvers are its audience: the reminder goes to the same people.
      ...followUpRows(ctx, planned, delays, { resolvers: people, admins: adminIds }, now),
    ];
    for (const r of planRows)
      rows.push({
        id: r.id as string,
        userId: r.userId,
        channel: r.channel,
        kind: r.kind,
        digest: r.digest ?? false,
        nextAttemptAt: r.nextAttemptAt as Date,
      });
  }
  const ids = { slackPost: mintId("slackPost"), teamsPost: mintId("teamsPost") };
  // The approval policy's escalation, when its rules have one (lib/policies/escalation.ts), is made
  // in the same transaction — only while the item is still tellable, like the rows.
  if (!routingOf(planned)?.escalation) return writeFanOut(messageId, rows, ids, now);
  return db().$transaction(async (tx) => {
    const written = await writeFanOut(messageId, rows, ids, now, tx);
    if (written.tellable) await scheduleEscalation(tx, planned);
    return written;
  });
}

/**
 * The job: fan the message out if not yet done, then send each of its due notifications — a
 * notify's email rows through digest.ts (a one-mail-each notify is a batch of one; digest rows wait
 * for the sweep's digest run), every other row claimed a few at a time and sent (send.ts) — then
 * the item's Slack and Teams posts, when it has any or the account could make one.
 */
export async function processNotifications(messageId: string): Promise<void> {
  const item = await readJobItem(messageId);
  const written = item ? await fanOut(messageId, item) : null;
  const notifyMail = item?.type === "notify";
  if (notifyMail) await sendNotifyRows(messageId);
  const sent = await sendDueRows(messageId, notifyMail);
  // The item's Slack channel post if due, and every Slack post that must show it settled: only an
  // item with a post (or one just made: a channel post, a direct message) has Slack work.
  if (!item || item.slackPosts || written?.slackPost || sent.channels.has(CHANNEL_SLACK)) await slackWork(messageId);
  // The same for the item's Teams cards (teams/posts.ts); personal cards are planned while the bot is connected.
  if (!item || item.teamsPosts || item.teamsConnected || written?.teamsPost) await teamsWork(messageId);
  await wakeForNextDue(messageId);
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

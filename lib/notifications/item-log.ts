/**
 * What the item page shows of its notifications (docs/notifications.md "On the item"): to
 * everyone who sees the item, when it was first reminded and escalated; to the account's
 * owners/admins also every notification row — person (handle), channel, kind, status and each
 * attempt's outcome, error class and time, and the item's Slack channel post. No address,
 * token or mail content: the rows hold none.
 */
import { db } from "../db";
import { KIND_ESCALATION, KIND_REMINDER } from "./kinds";
import { CHANNEL_SLOT } from "./slack/posts";

export interface FollowUpStamps {
  /** The first reminder's send time (ISO), or null when none was sent. */
  remindedAt: string | null;
  escalatedAt: string | null;
}

export interface NotificationAttemptView {
  attempt: number;
  outcome: string;
  errorClass: string | null;
  responseCode: number | null;
  at: string;
}

export interface NotificationRowView {
  id: string;
  /** The person's handle in the item's account; null once their seat is gone. */
  handle: string | null;
  channel: string;
  kind: string;
  status: string;
  /** When a pending row is due (a reminder, an escalation, a retry, a mail held by quiet hours). */
  dueAt: string | null;
  sentAt: string | null;
  lastErrorClass: string | null;
  attempts: NotificationAttemptView[];
}

/** The item's post in the account's Slack channel: its own obligation, not a person's row. */
export interface SlackChannelPostView {
  status: string;
  /** What the post shows now: "open", or the terminal status it was updated to. */
  shownStatus: string;
  channelId: string | null;
  attempts: number;
  lastErrorClass: string | null;
}

export interface ItemNotificationLog {
  stamps: FollowUpStamps;
  /** Only for the account's owners/admins (the caller decides); null otherwise. */
  rows: NotificationRowView[] | null;
  /** Only for owners/admins, and only when the item was posted (or is to be) to a Slack channel. */
  slackChannelPost: SlackChannelPostView | null;
}

const KIND_ORDER: Record<string, number> = { new: 0, [KIND_REMINDER]: 1, [KIND_ESCALATION]: 2 };

/**
 * The log of one item the caller may see (the page checks that first); `withRows` only for an
 * owner/admin seat in the item's account.
 */
export async function itemNotificationLog(messageId: string, withRows: boolean): Promise<ItemNotificationLog> {
  const firstSent = async (kind: string) =>
    (
      await db().notification.findFirst({
        where: { messageId, kind, status: "sent" },
        orderBy: { sentAt: "asc" },
        select: { sentAt: true },
      })
    )?.sentAt?.toISOString() ?? null;
  const [remindedAt, escalatedAt] = await Promise.all([firstSent(KIND_REMINDER), firstSent(KIND_ESCALATION)]);
  const stamps = { remindedAt, escalatedAt };
  if (!withRows) return { stamps, rows: null, slackChannelPost: null };
  const slackChannelPost = await db().slackPost.findUnique({
    where: { messageId_slot: { messageId, slot: CHANNEL_SLOT } },
    select: { status: true, shownStatus: true, channelId: true, attempts: true, lastErrorClass: true },
  });

  const rows = await db().notification.findMany({
    where: { messageId },
    select: {
      id: true,
      userId: true,
      channel: true,
      kind: true,
      status: true,
      nextAttemptAt: true,
      sentAt: true,
      lastErrorClass: true,
      message: { select: { accountId: true } },
      attemptLog: {
        orderBy: { id: "asc" },
        select: { attempt: true, outcome: true, errorClass: true, responseCode: true, at: true },
      },
    },
  });
  const accountId = rows[0]?.message.accountId;
  const seats = accountId
    ? await db().membership.findMany({
        where: { accountId, userId: { in: [...new Set(rows.map((r) => r.userId))] } },
        select: { userId: true, handle: true },
      })
    : [];
  const handle = new Map(seats.map((s) => [s.userId, s.handle]));
  return {
    stamps,
    slackChannelPost,
    rows: rows
      .map((r) => ({
        id: r.id,
        handle: handle.get(r.userId) ?? null,
        channel: r.channel,
        kind: r.kind,
        status: r.status,
        dueAt: r.status === "pending" ? r.nextAttemptAt.toISOString() : null,
        sentAt: r.sentAt?.toISOString() ?? null,
        lastErrorClass: r.lastErrorClass,
        attempts: r.attemptLog.map((a) => ({ ...a, at: a.at.toISOString() })),
      }))
      .sort(
        (a, b) =>
          (KIND_ORDER[a.kind] ?? 9) - (KIND_ORDER[b.kind] ?? 9) || (a.handle ?? "~").localeCompare(b.handle ?? "~"),
      ),
  };
}

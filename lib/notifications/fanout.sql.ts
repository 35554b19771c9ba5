/**
 * The statements behind lib/notifications/fanout.ts, on the pool: what one run of the notification
 * job reads of its item before anything else (one statement), and the fan-out's write — outbox row
 * processed, notification rows, the Slack and Teams channel posts — as one statement, so an item
 * costs a handful of round trips rather than a Prisma query per table and person.
 */
import { statementRows, type Tx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";

/** What the job reads of its item: the message, its outbox row, the account's channel set-up. */
export interface JobItem {
  id: string;
  accountId: string;
  type: string;
  status: string;
  priority: string;
  envelope: string;
  routing: string | null;
  createdAt: Date;
  /** The outbox row exists and is not processed yet: the fan-out is still to do. */
  toFanOut: boolean;
  /** The account's notification settings row (null fields: no row). */
  settingsDefaults: unknown;
  settingsReminders: unknown;
  /** The item has Slack posts (its channel post, direct messages). */
  slackPosts: boolean;
  /** The account's Teams bot is connected; the item has Teams posts. */
  teamsConnected: boolean;
  teamsPosts: boolean;
}

export const jobItem = statement(
  "a notification job's item: the message, its outbox row, the account's notification settings, its posts",
  (messageId: string) => Prisma.sql`SELECT m.id, m.account_id AS "accountId", m.type, m.status, m.priority, m.envelope,
                m.routing, m.created_at AS "createdAt",
                (o.message_id IS NOT NULL AND o.processed_at IS NULL) AS "toFanOut",
                s.defaults AS "settingsDefaults", s.reminders AS "settingsReminders",
                EXISTS (SELECT 1 FROM slack_posts sp WHERE sp.message_id = m.id) AS "slackPosts",
                (tc.account_id IS NOT NULL) AS "teamsConnected",
                EXISTS (SELECT 1 FROM teams_posts tp WHERE tp.message_id = m.id) AS "teamsPosts"
           FROM messages m
           LEFT JOIN notification_outbox o ON o.message_id = m.id
           LEFT JOIN account_notification_settings s ON s.account_id = m.account_id
           LEFT JOIN teams_connections tc ON tc.account_id = m.account_id
          WHERE m.id = ${messageId}`,
  [["msg_sample"]],
);

export async function readJobItem(messageId: string): Promise<JobItem | undefined> {
  return (await statementRows<JobItem>(jobItem.sql(messageId)))[0];
}

/** One notification row to insert (its id minted by the caller). */
export interface NewRow {
  id: string;
  userId: string;
  channel: string;
  kind: string;
  digest: boolean;
  nextAttemptAt: Date;
}

/**
 * The fan-out's write, all or nothing: the outbox row is marked processed (only the first run finds
 * it unprocessed: a second waits on its row lock and then does nothing), and — only if it was this
 * run's to process, and the item is still tellable (an ask/task open, a notify delivered:
 * recipients.ts `stillTellable`) — the notification rows are inserted under their unique key, and
 * the account's Slack channel post (slack/posts.ts) and Teams channel card (teams/posts.ts) of a new
 * ask or task, when the account has a channel, once each (unique slot).
 */
export const fanOutWrite = statement(
  "the fan-out: outbox row processed, notification rows, Slack and Teams channel posts",
  (
    messageId: string,
    rows: NewRow[],
    ids: { slackPost: string; teamsPost: string },
    now: Date,
  ) => Prisma.sql`WITH box AS (
             UPDATE notification_outbox SET processed_at = ${now}::timestamptz
              WHERE message_id = ${messageId} AND processed_at IS NULL RETURNING message_id),
           m AS (
             SELECT id, account_id, type FROM messages
              WHERE id IN (SELECT message_id FROM box)
                AND CASE WHEN type = 'notify' THEN status = 'delivered' ELSE status = 'open' END),
           n AS (
             INSERT INTO notifications (id, message_id, user_id, channel, kind, status, digest, attempts,
                                        next_attempt_at, created_at, updated_at)
             SELECT r.id, m.id, r.user_id, r.channel, r.kind, 'pending', r.digest, 0, r.next_attempt_at,
                    ${now}::timestamptz, ${now}::timestamptz
               FROM m, unnest(${rows.map((r) => r.id)}::text[], ${rows.map((r) => r.userId)}::text[],
                              ${rows.map((r) => r.channel)}::text[], ${rows.map((r) => r.kind)}::text[],
                              ${rows.map((r) => r.digest)}::boolean[],
                              ${rows.map((r) => r.nextAttemptAt.toISOString())}::timestamptz[])
                    AS r(id, user_id, channel, kind, digest, next_attempt_at)
             ON CONFLICT DO NOTHING RETURNING 1),
           sp AS (
             INSERT INTO slack_posts (id, account_id, message_id, slot, channel_id, next_attempt_at, created_at, updated_at)
             SELECT ${ids.slackPost}, m.account_id, m.id, 'channel', c.channel_id, ${now}::timestamptz,
                    ${now}::timestamptz, ${now}::timestamptz
               FROM m JOIN slack_connections c ON c.account_id = m.account_id
              WHERE m.type IN ('ask', 'task') AND c.channel_id IS NOT NULL
             ON CONFLICT DO NOTHING RETURNING 1),
           tp AS (
             INSERT INTO teams_posts (id, account_id, message_id, slot, conversation_id, service_url, next_attempt_at,
                                      created_at, updated_at)
             SELECT ${ids.teamsPost}, m.account_id, m.id, 'channel', c.channel_id, c.service_url, ${now}::timestamptz,
                    ${now}::timestamptz, ${now}::timestamptz
               FROM m JOIN teams_connections c ON c.account_id = m.account_id
              WHERE m.type IN ('ask', 'task') AND c.channel_id IS NOT NULL AND c.service_url IS NOT NULL
             ON CONFLICT DO NOTHING RETURNING 1)
      SELECT EXISTS (SELECT 1 FROM box) AS processed, EXISTS (SELECT 1 FROM m) AS tellable,
             (SELECT count(*) FROM n)::int AS notifications, EXISTS (SELECT 1 FROM sp) AS "slackPost",
             EXISTS (SELECT 1 FROM tp) AS "teamsPost"`,
  [
    [
      "msg_sample",
      [
        {
          id: "ntf_sample",
          userId: "usr_sample",
          channel: "email",
          kind: "new",
          digest: false,
          nextAttemptAt: new Date(0),
        },
      ],
      { slackPost: "slp_sample", teamsPost: "tmp_sample" },
      new Date(0),
    ],
  ],
);

export interface FanOutWritten {
  /** This run processed the outbox row. */
  processed: boolean;
  /** The item was still tellable: its rows and posts were written. */
  tellable: boolean;
  notifications: number;
  slackPost: boolean;
  teamsPost: boolean;
}

export async function writeFanOut(
  messageId: string,
  rows: NewRow[],
  ids: { slackPost: string; teamsPost: string },
  now: Date,
  tx?: Tx,
): Promise<FanOutWritten> {
  const [r] = await statementRows<FanOutWritten>(fanOutWrite.sql(messageId, rows, ids, now), tx);
  return r ?? { processed: false, tellable: false, notifications: 0, slackPost: false, teamsPost: false };
}

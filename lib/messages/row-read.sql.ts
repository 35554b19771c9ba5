/**
 * The statement behind lib/messages/row-read.ts: the message row with its resolution and its
 * mailbox track, in one statement on the pool. The column maps are typed against Prisma's models,
 * so a column added to `messages` or `resolutions` fails the type check here until it is read too.
 */
import { statementRows } from "../db";
import { Prisma, type Message as MessageRow, type Resolution } from "../generated/prisma/client";
import { statement } from "../sql-statement";
import type { MailboxTrackRow } from "./mailbox-track";

export const MESSAGE_COLUMNS = {
  id: "id",
  accountId: "account_id",
  agentRowId: "agent_row_id",
  type: "type",
  status: "status",
  ma2hVersion: "ma2h_version",
  envelope: "envelope",
  state: "state",
  title: "title",
  priority: "priority",
  priorityRank: "priority_rank",
  project: "project",
  tags: "tags",
  sensitive: "sensitive",
  idempotencyKey: "idempotency_key",
  expiresAt: "expires_at",
  callbackUrl: "callback_url",
  createdAt: "created_at",
  statusChangedAt: "status_changed_at",
  terminalAt: "terminal_at",
  toAddress: "to_address",
  toAgentRowId: "to_agent_row_id",
  submitSession: "submit_session",
  destination: "destination",
  routing: "routing",
} as const satisfies Record<keyof MessageRow, string>;

export const RESOLUTION_COLUMNS = {
  id: "id",
  messageId: "message_id",
  resolution: "resolution",
  actor: "actor",
  defaulted: "defaulted",
  response: "response",
  resolvedAt: "resolved_at",
  deliveredToAgentAt: "delivered_to_agent_at",
  ackedAt: "acked_at",
  ackBy: "ack_by",
  ackNote: "ack_note",
  ackResolutionId: "ack_resolution_id",
} as const satisfies Record<keyof Resolution, string>;

/** The mailbox track's columns of the `message` entry (§14.2), typed against the track row. */
const TRACK_COLUMNS = {
  state: "state",
  deliveredAt: "delivered_at",
  acknowledgedAt: "acknowledged_at",
  prior: "prior",
} as const satisfies Record<keyof MailboxTrackRow, string>;

// Constants only: no input reaches the raw text.
const MESSAGE_AND_RESOLUTION = [
  ...Object.entries(MESSAGE_COLUMNS).map(([field, column]) => `m.${column} AS "${field}"`),
  ...Object.entries(RESOLUTION_COLUMNS).map(([field, column]) => `r.${column} AS "r_${field}"`),
];
const SELECT_LIST = Prisma.raw(
  [
    ...MESSAGE_AND_RESOLUTION,
    ...Object.entries(TRACK_COLUMNS).map(([field, column]) => `e.${column} AS "e_${field}"`),
  ].join(", "),
);

/**
 * The message's columns (from `m`) and its resolution's, prefixed `r_` (from `r`), for another
 * statement that joins them — the push attempt's claim (lib/delivery/push-attempt.sql.ts).
 */
export const MESSAGE_RESOLUTION_LIST = Prisma.raw(MESSAGE_AND_RESOLUTION.join(", "));

/** One row: the message's fields, the resolution's prefixed `r_`, the entry track's `e_` (null when absent). */
export type JoinedMessageRow = MessageRow & { [K in keyof Resolution as `r_${K}`]: Resolution[K] | null } & {
  [K in keyof MailboxTrackRow as `e_${K}`]: MailboxTrackRow[K] | null;
};

export const messageWithResolution = statement(
  "a message with its resolution and its message entry's track",
  // §14.2: an addressed message's own `message` entry carries its mailbox track (same id).
  (id: string) => Prisma.sql`SELECT ${SELECT_LIST} FROM messages m LEFT JOIN resolutions r ON r.message_id = m.id
                 LEFT JOIN mailbox_entries e ON e.id = m.id AND e.kind = 'message' WHERE m.id = ${id}`,
  [["msg_sample"]],
);

/** The same read for several messages at once: the long-polls one burst of NOTIFYs wakes (row-read.ts). */
export const messagesWithResolution = statement(
  "messages with their resolutions and their message entries' tracks, by id",
  (ids: string[]) => Prisma.sql`SELECT ${SELECT_LIST} FROM messages m LEFT JOIN resolutions r ON r.message_id = m.id
                 LEFT JOIN mailbox_entries e ON e.id = m.id AND e.kind = 'message' WHERE m.id = ANY(${ids}::text[])`,
  [[["msg_sample", "msg_other"]]],
);

/**
 * On the pool (lib/db.ts statementRows): the read in front of every resolve, cancel and poll — and
 * before each long-poll parks — without the client's per-query cost.
 */
export async function selectMessageRow(id: string): Promise<JoinedMessageRow | undefined> {
  return (await statementRows<JoinedMessageRow>(messageWithResolution.sql(id)))[0];
}

/** Several messages' rows in one statement, in no particular order; ids not found are absent. */
export async function selectMessageRows(ids: string[]): Promise<JoinedMessageRow[]> {
  return statementRows<JoinedMessageRow>(messagesWithResolution.sql(ids));
}

/**
 * The message row with its resolution, read in one statement on the pool: the read in front of
 * every resolve, cancel and poll — and before each long-poll parks — without the client's per-query
 * cost (lib/db.ts statementRows). The column maps are typed against Prisma's models, so a column added
 * to `messages` or `resolutions` fails the type check here until it is read too.
 */
import { Prisma, type Message as MessageRow, type Resolution } from "../generated/prisma/client";
import { statementRows } from "../db";
import type { MailboxTrackRow } from "./mailbox-track";
import type { MessageWithResolution } from "./record";

const MESSAGE_COLUMNS = {
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
} as const satisfies Record<keyof MessageRow, string>;

const RESOLUTION_COLUMNS = {
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

// Constants only: no input reaches the raw text.
const SELECT_LIST = Prisma.raw(
  [
    ...Object.entries(MESSAGE_COLUMNS).map(([field, column]) => `m.${column} AS "${field}"`),
    ...Object.entries(RESOLUTION_COLUMNS).map(([field, column]) => `r.${column} AS "r_${field}"`),
    `e.state AS "e_state", e.delivered_at AS "e_deliveredAt", e.acknowledged_at AS "e_acknowledgedAt", e.prior AS "e_prior"`,
  ].join(", "),
);

type Joined = MessageRow & { [K in keyof Resolution as `r_${K}`]: Resolution[K] | null } & {
  [K in keyof MailboxTrackRow as `e_${K}`]: MailboxTrackRow[K] | null;
};

export async function readMessageRow(id: string): Promise<MessageWithResolution | null> {
  const rows = await statementRows<Joined>(
    // §14.2: an addressed message's own `message` entry carries its mailbox track (same id).
    Prisma.sql`SELECT ${SELECT_LIST} FROM messages m LEFT JOIN resolutions r ON r.message_id = m.id
                 LEFT JOIN mailbox_entries e ON e.id = m.id AND e.kind = 'message' WHERE m.id = ${id}`,
  );
  const joined = rows[0];
  if (!joined) return null;
  const message = {} as Record<string, unknown>;
  for (const field of Object.keys(MESSAGE_COLUMNS)) message[field] = joined[field as keyof MessageRow];
  let resolution: Resolution | null = null;
  if (joined.r_id !== null) {
    const r = {} as Record<string, unknown>;
    for (const field of Object.keys(RESOLUTION_COLUMNS)) r[field] = joined[`r_${field}` as keyof Joined];
    resolution = r as unknown as Resolution;
  }
  const mailbox: MailboxTrackRow | null =
    joined.e_state === null
      ? null
      : {
          state: joined.e_state,
          deliveredAt: joined.e_deliveredAt,
          acknowledgedAt: joined.e_acknowledgedAt,
          prior: joined.e_prior,
        };
  return { ...(message as unknown as MessageRow), resolution, mailbox };
}

/**
 * The statements behind lib/messages/submit.ts.
 *
 * §8.1 submit in one SQL statement (docs/PERFORMANCE.md): the message, its idempotency record,
 * the notification obligation, the audit event and the live-inbox NOTIFY commit together in a
 * single round trip — the guarantees of the interactive transaction in submit.ts, at a fraction of
 * its cost. It only ever creates: when the idempotency key is already taken (a replay, a conflict, a
 * key to reclaim) or the inbox is full while a key is present, it writes nothing and says so, and
 * submit.ts decides in its transaction (the §8.1 check order puts the idempotency lookup first).
 *
 * How the statement keeps each guarantee:
 * - §8.6 inbox depth: `slot` locks the agent's row of agent_open_counts with INSERT … ON CONFLICT DO
 *   UPDATE, which returns the newest committed count (not the statement's snapshot); concurrent
 *   submits of one agent queue on that lock. The triggers on `messages` count the new row.
 * - §8.1 idempotency: `keyed` inserts the record ON CONFLICT DO NOTHING; a concurrent first submit
 *   with the same key makes this one wait for it and then insert nothing, so exactly one message is
 *   created. The message is inserted only when the record was (or no key was given).
 * - The NOTIFYs — the live inbox, and the worker's notification fan-out (lib/jobs/wake.ts) — are
 *   sent on commit, and only when the message row was written.
 *
 * test/submit-parity.test.ts holds the row it writes to the one the Prisma client writes from the
 * same values, column for column.
 */
import { AUDIT_EVENT } from "../audit/events";
import { auditDetail, auditRowsInsert } from "../audit/row-fragment.sql";
import { statementRows, type Tx } from "../db";
import { Prisma, type Message as MessageRow } from "../generated/prisma/client";
import { FANOUT_CHANNEL, INBOX_CHANNEL } from "../pubsub/channels";
import { inboxPayload } from "../pubsub/inbox";
import { mailboxWakeKey } from "../pubsub/terminal";
import { statement } from "../sql-statement";
import { lockInboxSlot } from "./limits.sql";

/**
 * The row to create, typed against the model: every column of `messages` but the ones this
 * statement never writes — `statusChangedAt` (the creation instant) and the addressed columns (an
 * addressed or session-bearing submit takes the transaction, lib/messages/submit.ts).
 */
export type NewMessageRow = Omit<
  MessageRow,
  "statusChangedAt" | "toAddress" | "toAgentRowId" | "submitSession" | "destination"
>;

export interface SubmitStatementInput {
  row: NewMessageRow;
  payloadHash: string;
  /** `agent:<id>`: the audit actor. */
  actor: string;
  /** Set for an ask/task (§8.6): the inbox depth to hold it to. A notify takes no slot. */
  inboxDepth: number | null;
}

export type SubmitStatementOutcome =
  | { created: true }
  /**
   * Nothing written: the key is taken, or the inbox is full — `open` is the agent's open count
   * (under its lock) when a slot was taken.
   */
  | { created: false; open: number | null };

/** A notify takes no slot: an empty `slot` of the same shape. */
const NO_SLOT = Prisma.sql`SELECT NULL::int AS open WHERE false`;

const sampleRow = (type: string, key: string | null): NewMessageRow => ({
  id: "msg_sample",
  accountId: "acc_sample",
  agentRowId: "agt_row_sample",
  type,
  status: type === "notify" ? "delivered" : "open",
  ma2hVersion: "0.6",
  envelope: "{}",
  state: null,
  title: "sample",
  priority: "normal",
  priorityRank: 2,
  project: null,
  tags: [],
  sensitive: false,
  idempotencyKey: key,
  expiresAt: null,
  callbackUrl: null,
  createdAt: new Date(0),
  terminalAt: type === "notify" ? new Date(0) : null,
  routing: null,
});

export const submitNewMessage = statement(
  "submit: create a message with its idempotency record, outbox row, audit event and NOTIFYs",
  (input: SubmitStatementInput) => {
    const { row } = input;
    const needsSlot = input.inboxDepth !== null;
    const depth = input.inboxDepth ?? 0;
    const key = row.idempotencyKey;
    return Prisma.sql`
    WITH slot AS (${needsSlot ? lockInboxSlot.sql(row.agentRowId) : NO_SLOT}), room AS (
      SELECT NOT ${needsSlot} OR COALESCE((SELECT open FROM slot), 0) < ${depth} AS ok
    ), keyed AS (
      INSERT INTO idempotency_records (agent_row_id, idempotency_key, payload_hash, message_id, created_at)
      SELECT ${row.agentRowId}, ${key}::text, ${input.payloadHash}, ${row.id}, ${row.createdAt}::timestamptz
        FROM room WHERE room.ok AND ${key}::text IS NOT NULL
      ON CONFLICT DO NOTHING
      RETURNING 1
    ), msg AS (
      INSERT INTO messages (id, account_id, agent_row_id, type, status, ma2h_version, envelope, state, title,
                            priority, priority_rank, project, tags, sensitive, idempotency_key, expires_at,
                            callback_url, created_at, status_changed_at, terminal_at, routing)
      SELECT ${row.id}, ${row.accountId}, ${row.agentRowId}, ${row.type}, ${row.status}, ${row.ma2hVersion},
             ${row.envelope}, ${row.state}::text, ${row.title}, ${row.priority}, ${row.priorityRank}::smallint,
             ${row.project}::text, ${row.tags}::text[], ${row.sensitive}, ${key}::text,
             ${row.expiresAt}::timestamptz, ${row.callbackUrl}::text, ${row.createdAt}::timestamptz,
             ${row.createdAt}::timestamptz, ${row.terminalAt}::timestamptz, ${row.routing}::text
        FROM room
       WHERE room.ok AND (${key}::text IS NULL OR EXISTS (SELECT 1 FROM keyed))
      RETURNING id
    ), outbox AS (
      INSERT INTO notification_outbox (message_id, created_at) SELECT id, ${row.createdAt}::timestamptz FROM msg
    ), audit AS (
      ${auditRowsInsert({
        accountId: row.accountId,
        messageId: Prisma.sql`id`,
        actor: input.actor,
        event: AUDIT_EVENT.messageSubmitted,
        detail: auditDetail({ type: row.type }),
        at: row.createdAt,
      })}
        FROM msg
    )
    SELECT EXISTS (SELECT 1 FROM msg) AS created,
           (SELECT open FROM slot) AS open,
           (SELECT pg_notify(${INBOX_CHANNEL}, ${inboxPayload(row.accountId, row.id)}) FROM msg)::text AS notified,
           (SELECT pg_notify(${FANOUT_CHANNEL}, id) FROM msg)::text AS fanout`;
  },
  [
    // A notify (no slot, no key), an ask with a key (slot and record), an ask without one.
    [{ row: sampleRow("notify", null), payloadHash: "h", actor: "agent:sample", inboxDepth: null }],
    [{ row: sampleRow("ask", "key-1"), payloadHash: "h", actor: "agent:sample", inboxDepth: 100 }],
    [{ row: sampleRow("task", null), payloadHash: "h", actor: "agent:sample", inboxDepth: 100 }],
  ],
);

/** Runs the submit statement on the pool, prepared by name (lib/db.ts statementRows): the hot path. */
export async function runSubmitStatement(input: SubmitStatementInput): Promise<SubmitStatementOutcome> {
  const result = await statementRows<{ created: boolean; open: number | null }>(submitNewMessage.sql(input));
  const r = result[0];
  if (r?.created) return { created: true };
  return { created: false, open: r?.open ?? null };
}

/** The worker's notification fan-out (lib/jobs/wake.ts), told when `tx` commits. */
export const notifyFanout = statement(
  "NOTIFY the worker's fan-out of a new message",
  (messageId: string) => Prisma.sql`SELECT pg_notify(${FANOUT_CHANNEL}, ${messageId})`,
  [["msg_sample"]],
);

export async function notifyFanoutOnCommit(tx: Tx, messageId: string): Promise<void> {
  await tx.$executeRaw(notifyFanout.sql(messageId));
}

/**
 * One writer at a time per mailbox — an addressed submit parking its `message` entry, or a
 * directive's author (lib/mailbox/author.ts) — so the depth bound cannot be overshot by a race.
 * Held until the transaction ends.
 */
export const lockMailbox = statement(
  "take an agent's mailbox lock until the transaction ends",
  (agentRowId: string) => Prisma.sql`SELECT pg_advisory_xact_lock(hashtext(${mailboxWakeKey(agentRowId)}))`,
  [["agt_row_sample"]],
);

export async function lockMailboxForWriter(tx: Tx, agentRowId: string): Promise<void> {
  await tx.$executeRaw(lockMailbox.sql(agentRowId));
}

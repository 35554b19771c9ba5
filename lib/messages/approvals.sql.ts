/**
 * The statements behind lib/messages/approvals.ts: a quorum vote is one read and one write on the
 * pool, without a transaction (docs/decisions/approval-policies.md, "A vote is two statements").
 *
 * The read takes the ask's row version — its `xmin`, which every write of the row changes — in the
 * same snapshot as its votes. Every write of the votes changes the row too: a vote's write is an
 * UPDATE of the row conditioned on that version (a no-op update when the vote leaves the ask open,
 * the §7 compare-and-set itself when it completes it), and a withdrawal takes the row with an
 * UPDATE. A vote whose count another committed since matches no row, writes nothing, and is counted
 * again: PostgreSQL re-reads a row updated under a waiting UPDATE and re-checks its condition, so
 * two votes at the same moment never both count without the other.
 */
import type { AuditEventKind } from "../audit/events";
import { auditDetail, auditRowsInsert } from "../audit/row-fragment.sql";
import { statementRows, type Tx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { inboxNotifySql } from "../pubsub/inbox";
import { statement } from "../sql-statement";
import { guard, type TerminalTransition, transitionSql } from "./lifecycle.sql";

/**
 * Locks an ask's row for the transaction and reads its status: hand-overs and escalations
 * (lib/assignment/), whose routing change is a write of the row, and the vote under a lock
 * (./approvals.ts) run one after another with every other write of the row.
 */
export const lockMessageRow = statement(
  "lock a message row for a quorum vote",
  (id: string) => Prisma.sql`SELECT status, expires_at FROM messages WHERE id = ${id} FOR UPDATE`,
  [["msg_sample"]],
);

/** The locked row's status and `expires_at`, or null when it is gone. */
export async function lockMessageForVote(
  tx: Tx,
  id: string,
): Promise<{ status: string; expiresAt: Date | null } | null> {
  const rows = await tx.$queryRaw<Array<{ status: string; expires_at: Date | null }>>(lockMessageRow.sql(id));
  const row = rows[0];
  return row ? { status: row.status, expiresAt: row.expires_at } : null;
}

/**
 * Locks the row for a withdrawal with a no-op UPDATE, which changes its version: a vote counted
 * before the withdrawal commits is counted again.
 */
export const changeMessageRow = statement(
  "lock a quorum ask's row for a withdrawal, changing its version",
  (id: string) =>
    Prisma.sql`UPDATE messages SET status_changed_at = status_changed_at WHERE id = ${id} RETURNING status, expires_at`,
  [["msg_sample"]],
);

/** The row's status and `expires_at` once locked and changed, or null when it is gone. */
export async function lockMessageForWithdrawal(
  tx: Tx,
  id: string,
): Promise<{ status: string; expiresAt: Date | null } | null> {
  const rows = await statementRows<{ status: string; expires_at: Date | null }>(changeMessageRow.sql(id), tx);
  const row = rows[0];
  return row ? { status: row.status, expiresAt: row.expires_at } : null;
}

/** What a vote reads before it counts. */
export interface VoteRead {
  messageId: string;
  accountId: string;
  /** The person voting: their seat in the account is read with the voters'. */
  userId: string;
  /** The quorum's `require_from` groups: each seat's membership of them now. */
  groups: readonly string[];
  /** Whether the quorum excludes sponsors: the agent's sponsors now are read. */
  sponsors: boolean;
  now: Date;
}

/**
 * The ask's status, routing and version; whether an answer may still win (§7: neither overdue nor
 * undeliverable); its votes; the seats of its voters and of the person voting (theirs by id), with the `require_from`
 * groups each is in now; and the agent's sponsors now, as handles — the people and the members of the
 * groups lib/principals/sponsors.ts `sponsorHandlesByAgent` names. One row, none when the ask is gone.
 */
export const readVote = statement(
  "a quorum vote's read: the ask's version, its votes, the voters' seats and the agent's sponsors",
  (r: VoteRead) => Prisma.sql`
    SELECT status, routing, xmin::text AS version, ${guard("resolve", r.now)} AS answerable,
           (SELECT id FROM memberships WHERE account_id = ${r.accountId} AND user_id = ${r.userId}) AS "voterId",
           COALESCE((SELECT json_agg(json_build_object('membershipId', v.membership_id, 'handle', v.handle,
                                                       'resolution', v.resolution, 'value', v.value,
                                                       'forHandle', v.for_handle))
                       FROM approval_votes v WHERE v.message_id = messages.id), '[]'::json) AS votes,
           COALESCE((SELECT json_agg(json_build_object('id', s.id, 'accountId', s.account_id, 'handle', s.handle,
                                                       'role', s.role, 'groups', ARRAY(
                                                         SELECT g.name FROM group_members gm
                                                           JOIN account_groups g ON g.id = gm.group_id
                                                          WHERE gm.membership_id = s.id
                                                            AND g.name = ANY(${[...r.groups]}::text[]))))
                       FROM (SELECT v.membership_id AS id FROM approval_votes v WHERE v.message_id = messages.id
                             UNION
                             SELECT id FROM memberships WHERE account_id = ${r.accountId} AND user_id = ${r.userId}) voter
                       JOIN memberships s ON s.id = voter.id), '[]'::json) AS seats,
           CASE WHEN ${r.sponsors}::boolean THEN ARRAY(
             SELECT m.handle FROM agent_sponsors sp JOIN memberships m ON m.id = sp.membership_id
              WHERE sp.agent_row_id = messages.agent_row_id
             UNION
             SELECT m.handle FROM agent_sponsors sp JOIN group_members gm ON gm.group_id = sp.group_id
                    JOIN memberships m ON m.id = gm.membership_id
              WHERE sp.agent_row_id = messages.agent_row_id)
           ELSE ARRAY[]::text[] END AS sponsors
      FROM messages WHERE id = ${r.messageId}`,
  [
    [
      {
        messageId: "msg_sample",
        accountId: "acc_sample",
        userId: "usr_sample",
        groups: [],
        sponsors: false,
        now: new Date(0),
      },
    ],
    [
      {
        messageId: "msg_sample",
        accountId: "acc_sample",
        userId: "usr_sample",
        groups: ["sre"],
        sponsors: true,
        now: new Date(0),
      },
    ],
  ],
);

/** A stored vote as a vote reads it. */
export interface StoredVote {
  membershipId: string;
  handle: string;
  resolution: string;
  /** The answered option's value as JSON text; null for a decline. */
  value: string | null;
  forHandle: string | null;
}

export interface VoteState {
  status: string;
  routing: string | null;
  /** The row version the count is read at (its `xmin`). */
  version: string;
  /** Whether an answer may still win at `now` (§7): otherwise a terminal is owed. */
  answerable: boolean;
  /** The voting person's seat in the account (one of `seats`), or null. */
  voterId: string | null;
  votes: StoredVote[];
  seats: Array<{ id: string; accountId: string; handle: string; role: string; groups: string[] }>;
  sponsors: string[];
}

/** The read, on the pool or in `tx`; null when the ask is gone. */
export async function readVoteState(r: VoteRead, tx?: Tx): Promise<VoteState | null> {
  const [row] = await statementRows<VoteState>(readVote.sql(r), tx);
  return row ?? null;
}

/** A vote to write, with its audit event. */
export interface VoteWrite {
  messageId: string;
  /** The row version its count was read at: the write matches no row once it changed. */
  version: string;
  membershipId: string;
  handle: string;
  resolution: string;
  /** The answered option's value as JSON text; null for a decline. */
  value: string | null;
  comment: string | null;
  /** The person the vote is cast for (a delegate's), or null. */
  forHandle: string | null;
  /** `approval.recorded` or `approval.replaced`. */
  event: AuditEventKind;
  detail: Prisma.InputJsonObject;
  now: Date;
}

/** The vote (a first one, or one replacing the person's earlier answer) and its audit row, over `source`'s row. */
function voteWrites(v: VoteWrite, source: "bump" | "cas"): Prisma.Sql {
  const from = Prisma.raw(source);
  return Prisma.sql`vote AS (
      INSERT INTO approval_votes (message_id, membership_id, handle, resolution, value, comment, for_handle, at)
      SELECT id, ${v.membershipId}, ${v.handle}, ${v.resolution}, ${v.value}::text, ${v.comment}::text,
             ${v.forHandle}::text, ${v.now}::timestamptz
        FROM ${from}
      ON CONFLICT (message_id, membership_id) DO UPDATE
        SET handle = EXCLUDED.handle, resolution = EXCLUDED.resolution, value = EXCLUDED.value,
            comment = EXCLUDED.comment, for_handle = EXCLUDED.for_handle, at = EXCLUDED.at
    ), vote_audit AS (
      ${auditRowsInsert({
        accountId: Prisma.sql`account_id`,
        messageId: Prisma.sql`id`,
        actor: `human:${v.handle}`,
        event: v.event,
        detail: auditDetail(v.detail),
        at: v.now,
      })}
        FROM ${from}
      RETURNING id
    )`;
}

const SAMPLE_VOTE: VoteWrite = {
  messageId: "msg_sample",
  version: "1",
  membershipId: "mem_sample",
  handle: "sample",
  resolution: "answered",
  value: '"approve"',
  comment: null,
  forHandle: null,
  event: "approval.recorded",
  detail: { answer: "approve", channel: "inbox" },
  now: new Date(0),
};

/**
 * A vote that leaves the ask open: a no-op UPDATE of the row at the version read (so a vote counted
 * at it since loses), only while an answer may win (§7); then the vote, its audit row and the inbox
 * NOTIFY. One row when it was written — with whether the item has a live Slack post or Teams card,
 * whose approvals line then needs a refresh — none when it lost.
 */
export const recordVote = statement(
  "a quorum vote that leaves the ask open, at the row version its count read",
  (v: VoteWrite) => Prisma.sql`
    WITH bump AS (
      UPDATE messages SET status_changed_at = status_changed_at
       WHERE id = ${v.messageId} AND ${guard("resolve", v.now)} AND xmin = ${v.version}::xid
      RETURNING id, account_id
    ), ${voteWrites(v, "bump")}
    SELECT (EXISTS (SELECT 1 FROM slack_posts p WHERE p.message_id = bump.id AND p.status = 'posted')
             OR EXISTS (SELECT 1 FROM teams_posts p WHERE p.message_id = bump.id AND p.status = 'posted')) AS posted,
           (SELECT count(*) FROM vote_audit)::int AS audited,
           ${inboxNotifySql("bump.account_id", "bump.id")}::text AS notified
      FROM bump`,
  [[SAMPLE_VOTE], [{ ...SAMPLE_VOTE, resolution: "declined", value: null, forHandle: "other", comment: "no" }]],
);

/** Writes a vote that leaves the ask open; null when the ask changed since its count was read. */
export async function writeVote(v: VoteWrite, tx?: Tx): Promise<{ posted: boolean } | null> {
  const [row] = await statementRows<{ posted: boolean }>(recordVote.sql(v), tx);
  return row ? { posted: row.posted } : null;
}

/**
 * A vote that completes the ask: the §7 compare-and-set (./lifecycle.sql.ts) at the row version read,
 * with the vote and its audit row — which the final SELECT reads, so it is written before the
 * transition's `message.answered`.
 */
export const completeVote = statement(
  "a quorum's completing vote: the §7 compare-and-set with the vote, at the row version its count read",
  (t: TerminalTransition, v: VoteWrite) =>
    transitionSql(t, {
      condition: Prisma.sql`xmin = ${v.version}::xid`,
      ctes: voteWrites(v, "cas"),
      column: Prisma.sql`(SELECT count(*) FROM vote_audit)::int AS audited`,
    }),
  [
    [
      {
        messageId: "msg_sample",
        kind: "resolve",
        resolution: "answered",
        actor: "human:sample",
        defaulted: false,
        response: { value: "approve" },
        channel: "inbox",
        resolutionId: "res_sample",
        deliveryId: "dlv_sample",
        pushes: true,
        dropAt: new Date(86_400_000),
        now: new Date(0),
      },
      SAMPLE_VOTE,
    ],
  ],
);

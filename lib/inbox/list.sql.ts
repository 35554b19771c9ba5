/**
 * The statements behind lib/inbox/list.ts. Each account's rows come from
 * `messages_inbox_order_idx` / `messages_inbox_recent_idx` through a LATERAL per account, so a page
 * costs one index range scan per seat however many items are open (docs/PERFORMANCE.md, "Inbox").
 * Never selects `state`; addressed messages are not listed (§8.7.1, `TRIAGE_ONLY`).
 */
import { db } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";
import { FILTER_SAMPLES, filterConditions, TRIAGE_ONLY, whereAnd } from "./conditions.sql";
import type { Cursor, InboxFilters } from "./filters";

export interface InboxRawRow {
  id: string;
  account_id: string;
  type: string;
  status: string;
  title: string;
  priority: string;
  priority_rank: number;
  project: string | null;
  tags: string[] | null;
  created_at: Date;
  expires_at: Date | null;
  agent_id: string;
}

const COLUMNS = Prisma.sql`m.id, m.account_id, m.type, m.status, m.title, m.priority, m.priority_rank, m.project, m.tags, m.created_at, m.expires_at, m.agent_row_id`;

const OPEN_AFTER: Cursor = { g: 0, r: 1, c: new Date(0).toISOString(), i: "msg_sample" };
const REST_AFTER: Cursor = { g: 1, c: new Date(0).toISOString(), i: "msg_sample" };

/** Open items of each account by (priority_rank, created_at, id), merged. */
export const openPage = statement(
  "inbox page: open items by priority then age",
  (accountIds: string[], filters: InboxFilters, after: Cursor | null, n: number) => {
    const keyset =
      after?.g === 0
        ? [
            Prisma.sql`(m.priority_rank, m.created_at, m.id) > (${after.r}::smallint, ${after.c}::timestamptz, ${after.i})`,
          ]
        : [];
    return Prisma.sql`
    SELECT x.*, g.agent_id FROM unnest(${accountIds}::text[]) AS a(id)
    CROSS JOIN LATERAL (
      SELECT ${COLUMNS} FROM messages m
      WHERE m.account_id = a.id AND ${TRIAGE_ONLY} AND m.status = 'open' ${whereAnd([...filterConditions(filters), ...keyset])}
      ORDER BY m.priority_rank, m.created_at, m.id LIMIT ${n}
    ) x JOIN agents g ON g.id = x.agent_row_id
    ORDER BY x.priority_rank, x.created_at, x.id LIMIT ${n}`;
  },
  [
    ...FILTER_SAMPLES.map((f): [string[], InboxFilters, Cursor | null, number] => [["acc_a", "acc_b"], f, null, 51]),
    [["acc_a"], {}, OPEN_AFTER, 51],
  ],
);

/** Everything not open, newest first. */
export const restPage = statement(
  "inbox page: everything not open, newest first",
  (accountIds: string[], filters: InboxFilters, after: Cursor | null, n: number) => {
    const keyset = after?.g === 1 ? [Prisma.sql`(m.created_at, m.id) < (${after.c}::timestamptz, ${after.i})`] : [];
    return Prisma.sql`
    SELECT x.*, g.agent_id FROM unnest(${accountIds}::text[]) AS a(id)
    CROSS JOIN LATERAL (
      SELECT ${COLUMNS} FROM messages m
      WHERE m.account_id = a.id AND ${TRIAGE_ONLY} AND m.status <> 'open' ${whereAnd([...filterConditions(filters), ...keyset])}
      ORDER BY m.created_at DESC, m.id DESC LIMIT ${n}
    ) x JOIN agents g ON g.id = x.agent_row_id
    ORDER BY x.created_at DESC, x.id DESC LIMIT ${n}`;
  },
  [
    ...FILTER_SAMPLES.map((f): [string[], InboxFilters, Cursor | null, number] => [["acc_a", "acc_b"], f, null, 51]),
    [["acc_a"], {}, REST_AFTER, 51],
  ],
);

export async function readOpenPage(
  accountIds: string[],
  filters: InboxFilters,
  after: Cursor | null,
  n: number,
): Promise<InboxRawRow[]> {
  return db().$queryRaw<InboxRawRow[]>(openPage.sql(accountIds, filters, after, n));
}

export async function readRestPage(
  accountIds: string[],
  filters: InboxFilters,
  after: Cursor | null,
  n: number,
): Promise<InboxRawRow[]> {
  return db().$queryRaw<InboxRawRow[]>(restPage.sql(accountIds, filters, after, n));
}

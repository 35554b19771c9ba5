/**
 * The audit row as a fragment of a single SQL statement: the one form of `INSERT INTO audit_events`
 * that the hand-written statements (the submit, the §7 transition, the response track's stamp, the
 * mailbox ack) share, so each writes the columns Prisma's writer (./write.ts) writes and nothing else.
 *
 * The chain's guarantees hold as they do for ./write.ts: the row goes in unsealed — `seq`,
 * `prev_hash` and `hash` are never named here, so they are NULL until the worker's sealer links it
 * (./seal.ts; the trigger allows exactly that one UPDATE) — and `detail` is a jsonb value built from
 * ids and names only, as every writer's is. The caller follows the fragment with its row source:
 * `${auditRowsInsert({ … })} FROM cas`.
 */
import type { AuditEvent } from "../generated/prisma/client";
import { Prisma } from "../generated/prisma/client";
import type { AuditEventKind } from "./events";

/**
 * The columns a hand-written statement fills, typed against the model: a column added to
 * `audit_events` fails the type check here until it is decided for these writers. Never written
 * by them: `id` (the identity), `userId` (a person's own stream: these statements write an
 * account's trail) and the seal (`seq`, `prevHash`, `hash`, set by ./seal.ts alone).
 */
const AUDIT_COLUMNS = {
  accountId: "account_id",
  messageId: "message_id",
  actor: "actor",
  event: "event",
  detail: "detail",
  at: "at",
} as const satisfies Record<Exclude<keyof AuditEvent, "id" | "userId" | "seq" | "prevHash" | "hash">, string>;

type AuditColumn = keyof typeof AUDIT_COLUMNS;

/**
 * One row's values, each an SQL expression over the statement's row source (a column of a CTE) or
 * a plain value, which travels as a parameter. `messageId` absent is NULL (an event on no message).
 */
export interface AuditRowValues {
  accountId: Prisma.Sql | string;
  messageId?: Prisma.Sql | string | null;
  actor: Prisma.Sql | string;
  event: Prisma.Sql | AuditEventKind;
  /** A jsonb expression (`auditDetail` for a fixed value). */
  detail: Prisma.Sql;
  at: Prisma.Sql | Date;
}

/** A fixed `detail` as jsonb: the same JSON ./write.ts stores for the same value. */
export function auditDetail(detail: Prisma.InputJsonObject): Prisma.Sql {
  return Prisma.sql`${JSON.stringify(detail)}::jsonb`;
}

function auditValue(v: Prisma.Sql | string | Date | null | undefined): Prisma.Sql {
  if (v === undefined || v === null) return Prisma.sql`NULL::text`;
  if (v instanceof Date) return Prisma.sql`${v}::timestamptz`;
  if (typeof v === "string") return Prisma.sql`${v}::text`;
  return v;
}

// Constants only: no input reaches the raw text.
const COLUMN_LIST = Prisma.raw(Object.values(AUDIT_COLUMNS).join(", "));

/** `INSERT INTO audit_events (…) SELECT …`: the caller appends `FROM <its rows>` (and any WHERE/RETURNING). */
export function auditRowsInsert(row: AuditRowValues): Prisma.Sql {
  const values = (Object.keys(AUDIT_COLUMNS) as AuditColumn[]).map((column) => auditValue(row[column]));
  return Prisma.sql`INSERT INTO audit_events (${COLUMN_LIST}) SELECT ${Prisma.join(values)}`;
}

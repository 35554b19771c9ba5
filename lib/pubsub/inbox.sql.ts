/**
 * The inbox payload's separator and the inbox NOTIFY as an SQL expression, for the single statements
 * that update, audit and notify in one round trip (docs/PERFORMANCE.md).
 */
import { Prisma } from "../generated/prisma/client";
import { INBOX_CHANNEL } from "./channels";

/** Between the account id and the id in `<account id>:<id>` (account ids hold no `:`). */
export const INBOX_PAYLOAD_SEPARATOR = ":";

/**
 * The NOTIFY of inbox.ts's `publishInboxChange` over two columns of a row set. Evaluates to the
 * notification's `void` result; the column names are the caller's constants, never input.
 */
export function inboxNotifySql(accountIdColumn: string, idColumn: string): Prisma.Sql {
  return Prisma.sql`pg_notify(${INBOX_CHANNEL}, ${Prisma.raw(`${accountIdColumn} || '${INBOX_PAYLOAD_SEPARATOR}' || ${idColumn}`)})`;
}

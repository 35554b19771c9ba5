/**
 * The inbox's live-update payload, `<account id>:<id>` on INBOX_CHANNEL: the account picks the
 * subscribers seated in it (lib/inbox/events.ts), the id tells their page what to re-read. Only ids
 * travel; a browser re-reads through its session. Account ids hold no `:`, so the first one splits.
 */
import { Prisma } from "../generated/prisma/client";
import type { Tx } from "../db";
import { ENTRY_KIND } from "../protocol/entry-kinds";
import { INBOX_CHANNEL, UNDELIVERABLE_CHANNEL } from "./channels";

const SEPARATOR = ":";

export function inboxPayload(accountId: string, id: string): string {
  return `${accountId}${SEPARATOR}${id}`;
}

/** The payload's parts, or null for a malformed one. */
export function parseInboxPayload(payload: string): { accountId: string; id: string } | null {
  const at = payload.indexOf(SEPARATOR);
  if (at <= 0) return null;
  return { accountId: payload.slice(0, at), id: payload.slice(at + 1) };
}

/** Tells the inbox that `id` in `accountId` changed, when `tx` commits. */
export async function publishInboxChange(tx: Tx, accountId: string, id: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_notify(${INBOX_CHANNEL}, ${inboxPayload(accountId, id)})`;
}

/**
 * The same NOTIFY as an SQL expression over two columns of a row set, for the single statements
 * that update, audit and notify in one round trip (docs/PERFORMANCE.md). Evaluates to the
 * notification's `void` result; the column names are the caller's constants, never input.
 */
export function inboxNotifySql(accountIdColumn: string, idColumn: string): Prisma.Sql {
  return Prisma.sql`pg_notify(${INBOX_CHANNEL}, ${Prisma.raw(`${accountIdColumn} || '${SEPARATOR}' || ${idColumn}`)})`;
}

/**
 * A command entry's end, told on commit: the inbox (and traffic view) of its account, and — for an
 * addressed message's entry — the worker, which settles its receipt and §7 auto-resolution
 * (lib/mailbox/undeliverable.ts, lib/jobs/wake.ts).
 */
export async function publishEntryEnd(tx: Tx, entry: { id: string; account_id: string; kind: string }): Promise<void> {
  await publishInboxChange(tx, entry.account_id, entry.id);
  if (entry.kind === ENTRY_KIND.message) await tx.$executeRaw`SELECT pg_notify(${UNDELIVERABLE_CHANNEL}, ${entry.id})`;
}

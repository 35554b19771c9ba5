/**
 * The inbox's live-update payload, `<account id>:<id>` on INBOX_CHANNEL: the account picks the
 * subscribers seated in it (lib/inbox/events.ts), the id tells their page what to re-read. Only ids
 * travel; a browser re-reads through its session. Account ids hold no `:`, so the first one splits.
 */
import type { Tx } from "../db";
import { ENTRY_KIND } from "@ma2h/protocol/entry-kinds";
import { INBOX_CHANNEL, UNDELIVERABLE_CHANNEL } from "./channels";
import { INBOX_PAYLOAD_SEPARATOR as SEPARATOR } from "./inbox.sql";
import { publishOn } from "./publish.sql";

/**
 * The same NOTIFY as an SQL expression, built in ./inbox.sql.ts; named here too for the statements
 * that import it from this module.
 */
export { inboxNotifySql } from "./inbox.sql";

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
  await publishOn(tx, INBOX_CHANNEL, inboxPayload(accountId, id));
}

/**
 * A command entry's end, told on commit: the inbox (and traffic view) of its account, and — for an
 * addressed message's entry — the worker, which settles its receipt and §7 auto-resolution
 * (lib/mailbox/undeliverable.ts, lib/jobs/wake.ts).
 */
export async function publishEntryEnd(tx: Tx, entry: { id: string; account_id: string; kind: string }): Promise<void> {
  await publishInboxChange(tx, entry.account_id, entry.id);
  if (entry.kind === ENTRY_KIND.message) await publishOn(tx, UNDELIVERABLE_CHANNEL, entry.id);
}

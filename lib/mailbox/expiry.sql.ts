/** The statements behind lib/mailbox/expiry.ts (and the operator's purge, lib/mailbox/purge.ts). */
import type { DirectiveEnd } from "../audit/events";
import { db, type Tx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { COMMAND_KINDS, ENTRY_KIND } from "@ma2h/protocol/entry-kinds";
import { statement } from "../sql-statement";

/** Which live entries end: those due at `due` (or just `onlyId`), or an agent's (from one sender). */
export type LiveEntries = { due: Date; onlyId: string | null } | { agentRowId: string; senderRowId: string | null };

function selected(which: LiveEntries): Prisma.Sql {
  if ("due" in which) {
    // Past its drop time; a queued `message` entry also once past its message's `expires_at` (§9.8).
    return Prisma.sql`(drop_at <= ${which.due} OR (kind = ${ENTRY_KIND.message} AND state = 'queued' AND expires_at <= ${which.due}))
         AND (${which.onlyId}::text IS NULL OR id = ${which.onlyId})`;
  }
  // Addressed messages stay within an account (§8.7.1): the sender is one of its agents.
  return which.senderRowId === null
    ? Prisma.sql`agent_row_id = ${which.agentRowId}`
    : Prisma.sql`agent_row_id = ${which.agentRowId} AND kind = ${ENTRY_KIND.message} AND sender_agent_row_id = ${which.senderRowId}`;
}

/**
 * An undelivered entry's end: `expired` if never drained, a drained command entry `bounced` with
 * `prior: "delivered"` — so `expired` is never written after `delivered`.
 */
export const endEntries = statement(
  "end live mailbox entries: expired if never drained, a drained command entry bounced",
  (which: LiveEntries, now: Date) => Prisma.sql`
    UPDATE mailbox_entries
       SET state = CASE WHEN state = 'queued' OR kind <> ALL(${[...COMMAND_KINDS]}) THEN 'expired' ELSE 'bounced' END,
           prior = CASE WHEN state = 'delivered' AND kind = ANY(${[...COMMAND_KINDS]}) THEN 'delivered' ELSE NULL END,
           ended_at = ${now}
     WHERE state IN ('queued', 'delivered') AND (${selected(which)})
    RETURNING id, account_id, state, kind`,
  [
    [{ due: new Date(0), onlyId: null }, new Date(0)],
    [{ due: new Date(0), onlyId: "dir_sample" }, new Date(0)],
    [{ agentRowId: "agt_row_sample", senderRowId: null }, new Date(0)],
    [{ agentRowId: "agt_row_sample", senderRowId: "agt_row_sender" }, new Date(0)],
  ],
);

export interface EndedEntryRow {
  id: string;
  account_id: string;
  state: DirectiveEnd;
  kind: string;
}

export async function runEndEntries(tx: Tx, which: LiveEntries, now: Date): Promise<EndedEntryRow[]> {
  return tx.$queryRaw<EndedEntryRow[]>(endEntries.sql(which, now));
}

/** A `message` entry holds its message's mailbox track (§8.2): kept while the message is. */
export const deleteEndedEntries = statement(
  "delete mailbox entries ended before the cutoff (a message entry only after its message)",
  (cutoff: Date) => Prisma.sql`
    DELETE FROM mailbox_entries e WHERE e.ended_at < ${cutoff}
       AND (e.kind <> ${ENTRY_KIND.message} OR NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = e.id))`,
  [[new Date(0)]],
);

export async function runDeleteEndedEntries(cutoff: Date): Promise<number> {
  return db().$executeRaw(deleteEndedEntries.sql(cutoff));
}

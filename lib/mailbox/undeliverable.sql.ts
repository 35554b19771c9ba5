/** The statements behind lib/mailbox/undeliverable.ts. */
import { db, type Tx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { ENTRY_KIND } from "@ma2h/protocol/entry-kinds";
import { statement } from "../sql-statement";

/** The undeliverable `message` entries not yet settled (or just `onlyId`), oldest end first. */
export const unsettledEntries = statement(
  "undeliverable message entries not yet settled",
  (onlyId: string | null, limit: number) => Prisma.sql`
    SELECT id FROM mailbox_entries
     WHERE kind = ${ENTRY_KIND.message} AND state IN ('bounced', 'expired') AND settled_at IS NULL
       AND (${onlyId}::text IS NULL OR id = ${onlyId})
     ORDER BY ended_at LIMIT ${limit}`,
  [
    [null, 200],
    ["msg_sample", 200],
  ],
);

export async function runUnsettledEntries(onlyId: string | null, limit: number): Promise<{ id: string }[]> {
  return db().$queryRaw<{ id: string }[]>(unsettledEntries.sql(onlyId, limit));
}

export interface EndedEntry {
  id: string;
  state: "bounced" | "expired";
  prior: "queued" | "delivered" | null;
  to_session: string | null;
  claim_session: string | null;
  ended_at: Date;
}

/** Locked and re-checked: two settlers (the wake and the sweep) never both act. */
export const lockUnsettledEntry = statement(
  "one unsettled mailbox entry, locked (skipped when another settler holds it)",
  (id: string) => Prisma.sql`
      SELECT id, state, prior, to_session, claim_session, ended_at FROM mailbox_entries
       WHERE id = ${id} AND settled_at IS NULL FOR UPDATE SKIP LOCKED`,
  [["msg_sample"]],
);

export async function runLockUnsettledEntry(tx: Tx, id: string): Promise<EndedEntry | undefined> {
  const [entry] = await tx.$queryRaw<EndedEntry[]>(lockUnsettledEntry.sql(id));
  return entry;
}

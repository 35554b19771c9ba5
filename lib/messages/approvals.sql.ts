/** The statement behind lib/messages/approvals.ts: the message row lock every vote takes. */
import type { Tx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";

/**
 * Locks an ask's row for the vote's transaction and reads its status: votes on one ask, and its
 * §7 terminal transitions (whose UPDATE waits on this lock), run one after another, so each vote
 * recounts every vote committed before it (docs/policies.md "Quorum").
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

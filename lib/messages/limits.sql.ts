/** The statement behind lib/messages/limits.ts, and the submit statement's `slot` (./submit.sql.ts). */
import type { Tx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";

/**
 * Locks the agent's row of agent_open_counts until the transaction ends and returns its `open`:
 * `INSERT … ON CONFLICT DO UPDATE` sees the newest committed count, not the statement's snapshot.
 * The one form of the lock, here and as the submit statement's `slot` (./submit.sql.ts).
 */
export const lockInboxSlot = statement(
  "lock an agent's open-count row and read its open asks/tasks",
  (agentRowId: string) => Prisma.sql`INSERT INTO agent_open_counts (agent_row_id, open) VALUES (${agentRowId}, 0)
    ON CONFLICT (agent_row_id) DO UPDATE SET open = agent_open_counts.open
    RETURNING open`,
  [["agt_row_sample"]],
);

/** The agent's open asks/tasks, its row locked until `tx` ends. */
export async function lockedOpenCount(tx: Tx, agentRowId: string): Promise<number> {
  const rows = await tx.$queryRaw<{ open: number }[]>(lockInboxSlot.sql(agentRowId));
  return rows[0]?.open ?? 0;
}

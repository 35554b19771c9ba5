/** The statement behind lib/principals/authenticate.ts. */
import { db } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";

export interface AgentKeyRow {
  id: string;
  key_hash: string;
  revoked_at: Date | null;
  last_used_at: Date | null;
  agent_row_id: string;
  agent_id: string;
  account_id: string;
}

/**
 * One round trip with the agent joined in. (A model query with the nested `agent` select costs two
 * statements; measured in docs/PERFORMANCE.md.)
 */
export const agentKeyByHash = statement(
  "an API key by its hash, with its agent",
  (hash: string) => Prisma.sql`
      SELECT k.id, k.key_hash, k.revoked_at, k.last_used_at, a.id AS agent_row_id, a.agent_id, a.account_id
      FROM api_keys k JOIN agents a ON a.id = k.agent_row_id
      WHERE k.key_hash = ${hash}`,
  [["0".repeat(64)]],
);

export async function readAgentKey(hash: string): Promise<AgentKeyRow | undefined> {
  const [row] = await db().$queryRaw<AgentKeyRow[]>(agentKeyByHash.sql(hash));
  return row;
}

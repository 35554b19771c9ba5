/**
 * The statement behind lib/principals/key-list.ts, run on the pool (lib/db-pool.ts). The tag is
 * Prisma's from @prisma/client-runtime-utils, as in ./agent-ref.sql.ts: `ma2h-hub key list` loads
 * no Prisma client.
 */
import { sql } from "@prisma/client-runtime-utils";
import { statementRows } from "../db-pool";
import { statement } from "../sql-statement";

export interface KeyRow {
  id: string;
  createdAt: Date;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

export const agentKeys = statement(
  "an agent's API keys (never their hashes), oldest first, revoked ones included",
  (agentRowId: string) => sql`
      SELECT id, created_at AS "createdAt", revoked_at AS "revokedAt", last_used_at AS "lastUsedAt"
        FROM api_keys
       WHERE agent_row_id = ${agentRowId}
       ORDER BY created_at, id`,
  [["agt_sample"]],
);

export function readAgentKeys(agentRowId: string): Promise<KeyRow[]> {
  return statementRows<KeyRow>(agentKeys.sql(agentRowId));
}

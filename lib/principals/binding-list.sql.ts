/**
 * The statement behind lib/principals/binding-list.ts, run on the pool (lib/db-pool.ts). The tag is
 * Prisma's from @prisma/client-runtime-utils, as in ./agent-ref.sql.ts: `ma2h-hub binding list`
 * loads no Prisma client.
 */
import { sql } from "@prisma/client-runtime-utils";
import { statementRows } from "../db-pool";
import { statement } from "../sql-statement";

export interface ActiveBindingRow {
  id: string;
  scheme: string;
  host: string;
  port: number;
  pathPrefix: string;
  standardWebhooks: boolean;
  /** Its secrets' refs (never the secrets), in no order. */
  refs: string[];
}

export const activeBindings = statement(
  "an agent's active callback bindings with their secrets' refs, oldest first",
  (agentRowId: string) => sql`
      SELECT b.id, b.scheme, b.host, b.port, b.path_prefix AS "pathPrefix",
             b.standard_webhooks_secret_sealed IS NOT NULL AS "standardWebhooks",
             ARRAY(SELECT s.ref FROM binding_secrets s WHERE s.binding_id = b.id) AS refs
        FROM callback_bindings b
       WHERE b.agent_row_id = ${agentRowId} AND b.revoked_at IS NULL
       ORDER BY b.created_at, b.id`,
  [["agt_sample"]],
);

export function readActiveBindings(agentRowId: string): Promise<ActiveBindingRow[]> {
  return statementRows<ActiveBindingRow>(activeBindings.sql(agentRowId));
}

/**
 * The statement behind lib/principals/agent-ref.ts, run on the pool (lib/db-pool.ts). The tag is
 * Prisma's from @prisma/client-runtime-utils (what `Prisma.sql` re-exports), as in
 * lib/sealed/rows.sql.ts: a command that only resolves an agent and reads loads no Prisma client.
 */
import { empty, sql } from "@prisma/client-runtime-utils";
import { statementRows } from "../db-pool";
import { statement } from "../sql-statement";

export interface AgentRefRow {
  id: string;
  agentId: string;
  accountId: string;
  accountSlug: string;
}

/** At most 10: enough to name the accounts of an ambiguous id. */
export const agentsNamed = statement(
  "the agents an agent id names, in one account or in every one, with the account's slug",
  (agentId: string, accountSlug?: string) => sql`
      SELECT a.id, a.agent_id AS "agentId", a.account_id AS "accountId", c.slug AS "accountSlug"
        FROM agents a JOIN accounts c ON c.id = a.account_id
       WHERE a.agent_id = ${agentId}${accountSlug === undefined ? empty : sql` AND c.slug = ${accountSlug}`}
       LIMIT 10`,
  [["bot/sample"], ["bot/sample", "acme"]],
);

export function readAgentsNamed(agentId: string, accountSlug?: string): Promise<AgentRefRow[]> {
  return statementRows<AgentRefRow>(agentsNamed.sql(agentId, accountSlug));
}

/** The statement behind lib/standing-rules/apply.ts: whether an agent has a live rule at all. */
import { statementRows } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";

export const hasLiveRule = statement(
  "whether an agent of an account has a standing rule neither revoked, stopped nor expired",
  (accountId: string, agentId: string, now: Date) => Prisma.sql`
    SELECT EXISTS (
      SELECT 1 FROM standing_rules
       WHERE account_id = ${accountId} AND agent_id = ${agentId} AND revoked_at IS NULL AND stopped_at IS NULL
         AND (expires_at IS NULL OR expires_at > ${now}::timestamptz)
    ) AS live`,
  [["acc_sample", "agent/sample", new Date(0)]],
);

/** On the pool: the one read a new ask costs when its agent has no live rule (the common case). */
export async function agentHasLiveRule(accountId: string, agentId: string, now: Date): Promise<boolean> {
  return (await statementRows<{ live: boolean }>(hasLiveRule.sql(accountId, agentId, now)))[0]?.live === true;
}

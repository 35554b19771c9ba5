/** The statement behind lib/principals/sender-allowlist.ts. */
import type { Tx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";

/** `FOR NO KEY UPDATE`: submits' foreign-key checks (a key-share lock) do not wait on it. */
export const agentPolicyForUpdate = statement(
  "lock an agent's row and read its sender policy",
  (accountId: string, agentId: string) => Prisma.sql`
      SELECT id, senders_restricted, allowed_senders FROM agents
       WHERE account_id = ${accountId} AND agent_id = ${agentId} FOR NO KEY UPDATE`,
  [["acc_sample", "build-bot"]],
);

export async function lockAgentPolicy(
  tx: Tx,
  accountId: string,
  agentId: string,
): Promise<{ id: string; senders_restricted: boolean; allowed_senders: string[] | null } | undefined> {
  const [locked] = await tx.$queryRaw<{ id: string; senders_restricted: boolean; allowed_senders: string[] | null }[]>(
    agentPolicyForUpdate.sql(accountId, agentId),
  );
  return locked;
}

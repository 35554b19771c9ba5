/** The statements behind lib/sessions/register.ts. */
import type { Tx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";

/**
 * The key's agent row, locked `FOR NO KEY UPDATE` — the lock an operator's stop takes too
 * (./stop.sql.ts) — so a registration and a stop serialize (R236); it does not block the
 * foreign-key checks of the agent's submits.
 */
export const lockAgentOfKey = statement(
  "lock the agent row of an API key (FOR NO KEY UPDATE)",
  (keyHash: string) => Prisma.sql`
      SELECT a.id FROM api_keys k JOIN agents a ON a.id = k.agent_row_id
       WHERE k.key_hash = ${keyHash} FOR NO KEY UPDATE OF a`,
  [["hash_sample"]],
);

export async function runLockAgentOfKey(tx: Tx, keyHash: string): Promise<void> {
  await tx.$queryRaw(lockAgentOfKey.sql(keyHash));
}

export interface AuthRow {
  key_hash: string;
  revoked_at: Date | null;
  agent_row_id: string;
  agent_id: string;
  account_id: string;
  stopped: boolean;
  live: number;
  next_lapse: Date | null;
}

/** The read that authenticates: the key, its agent, the agent's stop record and live sessions. */
export const keyAgentForRegistration = statement(
  "an API key's agent with its stop and its live sessions",
  (keyHash: string, now: Date) => Prisma.sql`
      SELECT k.key_hash, k.revoked_at, a.id AS agent_row_id, a.agent_id, a.account_id,
             EXISTS (SELECT 1 FROM agent_stops s WHERE s.agent_row_id = a.id) AS stopped,
             (SELECT count(*)::int FROM agent_sessions s
               WHERE s.agent_row_id = a.id AND s.state = 'active' AND s.expires_at > ${now}) AS live,
             (SELECT min(s.expires_at) FROM agent_sessions s
               WHERE s.agent_row_id = a.id AND s.state = 'active' AND s.expires_at > ${now}) AS next_lapse
        FROM api_keys k JOIN agents a ON a.id = k.agent_row_id
       WHERE k.key_hash = ${keyHash}`,
  [["hash_sample", new Date(0)]],
);

export async function readKeyAgent(tx: Tx, keyHash: string, now: Date): Promise<AuthRow | undefined> {
  const [row] = await tx.$queryRaw<AuthRow[]>(keyAgentForRegistration.sql(keyHash, now));
  return row;
}

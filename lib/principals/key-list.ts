/**
 * Listing an agent's API keys (§9.1): a read on owned statements on the pool (./agent-ref.ts,
 * ./key-list.sql.ts), apart from lib/principals/api-keys.ts (which re-exports it) so that
 * `ma2h-hub key list` loads no Prisma client.
 */
import { type AgentRef, resolveAgent } from "./agent-ref";
import { readAgentKeys } from "./key-list.sql";

export interface KeyInfo {
  id: string;
  createdAt: Date;
  revokedAt: Date | null;
  /** Last authenticated use, recorded at most once a minute (authenticate.ts). */
  lastUsedAt: Date | null;
}

/** Every key of the agent, oldest first, revoked ones included. */
export async function listKeys(ref: AgentRef): Promise<KeyInfo[]> {
  const agent = await resolveAgent(ref);
  return readAgentKeys(agent.id);
}

/**
 * Listing an agent's callback bindings (§9.4): a read on owned statements on the pool
 * (./agent-ref.ts, ./binding-list.sql.ts), apart from lib/principals/bindings.ts (which re-exports
 * it) so that `ma2h-hub binding list` loads no Prisma client.
 */
import { type AgentRef, resolveAgent } from "./agent-ref";
import { readActiveBindings } from "./binding-list.sql";
import { formatOrigin } from "./origins";

export interface BindingInfo {
  id: string;
  /** The wire `agent.id`. */
  agentId: string;
  accountSlug: string;
  origin: string;
  pathPrefix: string;
  secretRefs: string[];
  /** Whether pushes to it carry Standard Webhooks headers (lib/delivery/binding-webhooks.ts). */
  standardWebhooks: boolean;
}

/** The agent's active bindings, oldest first, with their secret refs (never the secrets). */
export async function listBindings(ref: AgentRef): Promise<BindingInfo[]> {
  const agent = await resolveAgent(ref);
  const rows = await readActiveBindings(agent.id);
  return rows.map((r) => ({
    id: r.id,
    agentId: agent.agentId,
    accountSlug: agent.accountSlug,
    origin: formatOrigin(r),
    pathPrefix: r.pathPrefix,
    secretRefs: [...r.refs].sort(),
    standardWebhooks: r.standardWebhooks,
  }));
}

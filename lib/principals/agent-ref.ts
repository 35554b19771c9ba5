/**
 * Naming an agent: an `AgentRef` is its `agent.id` (unique per account, may contain `/`), with the
 * account's slug required only when the id exists in more than one account. Resolved by one owned
 * statement on the pool (./agent-ref.sql.ts), so a caller that only reads — `ma2h-hub key list`,
 * `binding list` — loads no Prisma client; lib/principals/agents.ts re-exports it.
 */
import { HubError } from "@ma2h/protocol/errors";
import { readAgentsNamed } from "./agent-ref.sql";

export interface AgentRef {
  agentId: string;
  accountSlug?: string;
}

export interface AgentRow {
  /** Internal row id. */
  id: string;
  /** The wire `agent.id`. */
  agentId: string;
  accountId: string;
  accountSlug: string;
}

/** Finds the agent `ref` names: `404` when unknown, `422` when the id is ambiguous across accounts. */
export async function resolveAgent(ref: AgentRef): Promise<AgentRow> {
  const rows = await readAgentsNamed(ref.agentId, ref.accountSlug || undefined);
  const scope = ref.accountSlug ? ` in account ${ref.accountSlug}` : "";
  const [first] = rows;
  if (!first) throw new HubError("not_found", `agent ${ref.agentId} not found${scope}`);
  if (rows.length > 1) {
    const slugs = rows
      .map((r) => r.accountSlug)
      .sort()
      .join(", ");
    throw new HubError(
      "invalid_field",
      `agent ${ref.agentId} exists in several accounts (${slugs}); pass --account <slug>`,
    );
  }
  return { id: first.id, agentId: first.agentId, accountId: first.accountId, accountSlug: first.accountSlug };
}

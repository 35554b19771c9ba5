/**
 * What an agent's page shows of who may message it (§13.5): the policy, the listed ids that name no
 * agent of the account, the account's other agents to pick from, whether the account's inter-agent
 * leg is open at all (§8.0) and whether this person may change the list (owners and admins — the
 * rule `setSenderAllowlist` enforces; this only decides whether to draw the form). Reads only.
 */
import { interAgentStateOf } from "../principals/accounts";
import { listAgents } from "../principals/agents";
import { ADMIN_ROLES } from "../principals/seats";
import { senderAllowlistOf, type SenderPolicy } from "../principals/sender-allowlist";
import type { Seat } from "../principals/types";

export interface AgentSendersView {
  senders: SenderPolicy;
  /** Listed ids that are not agents of the account (yet). */
  unknown: string[];
  /** The account's other agents, by `agent.id` — what the form offers to tick. */
  candidates: string[];
  /** §8.0: the account opted in and the Hub allows it. */
  interAgentOpen: boolean;
  canEdit: boolean;
}

export async function agentSendersView(seat: Seat, agentId: string): Promise<AgentSendersView> {
  const [policy, agents, interAgent] = await Promise.all([
    senderAllowlistOf(seat.accountId, agentId),
    listAgents(seat.accountId),
    interAgentStateOf(seat.accountId),
  ]);
  return {
    senders: policy.senders,
    unknown: policy.unknown,
    candidates: agents.map((a) => a.agentId).filter((id) => id !== agentId),
    interAgentOpen: interAgent.effective,
    canEdit: ADMIN_ROLES.includes(seat.role),
  };
}

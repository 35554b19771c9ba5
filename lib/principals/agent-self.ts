/**
 * `GET /v1/agents/me`: what an agent needs to know about itself that the public documents do not
 * say. The key id that signs its account's §9.2 pushes — the `/.well-known/ma2h-keys` document
 * lists every account's keys under opaque kids, so a receiver pins this one and refuses the rest —
 * and whether the §8.0 inter-agent leg is open for its account (the capability document says only
 * whether the Hub allows it at all), so a sender can know before it addresses a peer.
 */
import { env } from "../env";
import { accountKeyIds } from "../keys/signing-keys";
import { interAgentStateOf } from "./accounts";
import type { AgentSelfBody } from "@ma2h/protocol/api-bodies";
import type { AgentPrincipal } from "./types";

export type AgentSelf = AgentSelfBody;

export async function agentSelf(principal: AgentPrincipal): Promise<AgentSelf> {
  const [keys, leg] = await Promise.all([accountKeyIds(principal.accountId), interAgentStateOf(principal.accountId)]);
  return {
    agent: { id: principal.agentId },
    push_signing: {
      key_id: keys.active,
      key_ids: keys.published,
      keys_url: `${env().publicUrl}/.well-known/ma2h-keys`,
    },
    inter_agent: { enabled: leg.effective, account_opted_in: leg.optedIn, hub_allows: leg.ceiling },
  };
}

/** Authenticating the caller of a /v1 route (§9.1). */
import { authenticate, requireAgent } from "../principals/authenticate";
import type { AgentPrincipal } from "../principals/types";
import type { Resolver } from "../messages/access";

/** Submit, poll and cancel take an agent credential; a PAT here is `401 unauthenticated`. */
export async function agentCaller(req: Request): Promise<AgentPrincipal> {
  return requireAgent(await authenticate(req.headers));
}

/** Resolve takes an agent credential or an operator's personal access token (§8.8). */
export async function resolverCaller(req: Request): Promise<Resolver> {
  const p = await authenticate(req.headers);
  return p.kind === "agent" ? { kind: "agent", principal: p } : { kind: "human", userId: p.userId };
}

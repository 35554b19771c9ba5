/** Who is calling. Resolved from `Authorization: Bearer …` / `X-API-Key: …` by authenticate.ts. */
export type Role = "owner" | "admin" | "member" | "viewer";
export const ROLES: readonly Role[] = ["owner", "admin", "member", "viewer"];
/** §9.1 (and docs/decisions/protocol.md): these roles may resolve; owner/admin also administer. */
export const RESOLVING_ROLES: readonly Role[] = ["owner", "admin", "member"];

export interface AgentPrincipal {
  kind: "agent";
  /** Internal row id of the agent. */
  agentRowId: string;
  /** The wire `agent.id`. */
  agentId: string;
  accountId: string;
  keyId: string;
}

export interface OperatorPrincipal {
  kind: "operator";
  userId: string;
  tokenId: string;
}

export type Principal = AgentPrincipal | OperatorPrincipal;

/** A human's seat in one account: the attested actor is `human:<handle>`. */
export interface Seat {
  accountId: string;
  handle: string;
  role: Role;
  /**
   * The people this seat answers for now: those whose out-of-office delegation names it and whose
   * window holds the present (lib/delegation/; docs/policies.md "Delegation"). Absent: none known.
   */
  delegators?: readonly string[];
}

/**
 * §15.3 owner-only presence read. A person sees the presence of an agent of any account where they
 * hold a seat (viewers included, like the inbox). Every other case — an agent of another account,
 * an id that exists nowhere — is exactly the `unknown` body, built by the same function from the
 * same query, so the two are indistinguishable.
 */
import { db } from "../db";
import { ROLES } from "../principals/types";
import { presenceOf, type Presence } from "./state";

export async function presenceForHuman(userId: string, agentId: string): Promise<Presence> {
  // The same agent id may exist in several of the person's accounts: the freshest sighting counts.
  const agents = await db().agent.findMany({
    where: { agentId, account: { memberships: { some: { userId, role: { in: [...ROLES] } } } } },
    select: { lastSeenAt: true },
    orderBy: { lastSeenAt: { sort: "desc", nulls: "last" } },
    take: 1,
  });
  return presenceOf(agentId, agents[0]?.lastSeenAt ?? null);
}

/**
 * `{agent_id}` from a `/v1/agents/{agent_id}/presence` path. Agent ids contain `/`, so both the
 * encoded form (`deploybot%2Fdev-team`) and the literal one (`deploybot/dev-team`) name the same
 * agent: the segments between `agents` and the final `presence` are joined and percent-decoded.
 * Null for any other path under `/v1/agents/`.
 */
export function presencePathAgentId(pathname: string): string | null {
  const m = /^\/v1\/agents\/(.+)\/presence\/?$/u.exec(pathname);
  if (!m?.[1]) return null;
  try {
    const id = decodeURIComponent(m[1]);
    return id.length > 0 ? id : null;
  } catch {
    return null; // malformed percent-encoding names no agent
  }
}

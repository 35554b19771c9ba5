/**
 * §15.3 owner-only, per-account presence read. An agent is named by its account too (`?account=`),
 * because agent ids are unique per account only: a same-named agent of another account must never
 * stand in for this one. Within an account where the person holds a seat (viewers included,
 * like the inbox), an id that exists nowhere is the `unknown` body (§15.3: indistinguishable). An
 * account where they hold no seat — or that does not exist — is `404`, the same for every agent id.
 * Without `?account=`: the person's only account; with seats in several it is a `400` naming the
 * parameter, never a guess.
 */
import { db } from "../db";
import type { PresenceRead } from "@ma2h/protocol/api-bodies";
import { HubError } from "@ma2h/protocol/errors";
import { readerAccountId } from "../principals/seats";
import { listSessionsOfAccount } from "../sessions/read";
import { presenceOf } from "./state";

export async function presenceForHuman(
  userId: string,
  agentId: string,
  accountSlug: string | null,
): Promise<PresenceRead> {
  const accountId = await readerAccountId(userId, accountSlug);
  const agent = accountId
    ? await db().agent.findUnique({
        where: { accountId_agentId: { accountId, agentId } },
        select: { id: true, lastSeenAt: true },
      })
    : null;
  // An agent that does not exist reads exactly like one that never held a session (§15.3).
  const sessions = agent && accountId ? (await listSessionsOfAccount(accountId, agent.id)).sessions : [];
  return {
    ...presenceOf(agentId, agent?.lastSeenAt ?? null),
    sessions: sessions.map((s) => ({
      id: s.id,
      state: s.state,
      ...(s.last_seen ? { last_seen: s.last_seen } : {}),
      expires_at: s.expires_at,
    })),
  };
}

/** `?account=` of a presence read: absent is null; present but empty is a 400. */
export function presenceAccountParam(url: URL): string | null {
  const v = url.searchParams.get("account");
  if (v === null) return null;
  if (v.trim() === "") throw new HubError("validation_error", "account: must be an account slug");
  return v.trim();
}

/**
 * `{agent_id}` from a `/v1/agents/{agent_id}/presence` path. Agent ids contain `/`, so both the
 * encoded form (`deploybot%2Fdev-team`) and the literal one (`deploybot/dev-team`) name the same
 * agent: the segments between `agents` and the final `presence` are joined and percent-decoded.
 * Null for any other path under `/v1/agents/`.
 */
export function presencePathAgentId(pathname: string): string | null {
  return agentPathId(pathname, "presence");
}

/**
 * `{agent_id}` from `/v1/agents/{agent_id}/<verb>` (presence, stop, resume), read the same way as
 * presence: encoded or literal `/` alike. Null for any other path.
 */
export function agentPathId(pathname: string, verb: "presence" | "stop" | "resume"): string | null {
  const m = new RegExp(`^/v1/agents/(.+)/${verb}/?$`, "u").exec(pathname);
  if (!m?.[1]) return null;
  try {
    const id = decodeURIComponent(m[1]);
    return id.length > 0 ? id : null;
  } catch {
    return null; // malformed percent-encoding names no agent
  }
}

/**
 * §15.3 owner-only, per-account presence read. An agent is named by its account too (`?account=`),
 * because agent ids are unique per account only: a same-named agent of another account must never
 * stand in for this one (#18). Within an account where the person holds a seat (viewers included,
 * like the inbox), an id that exists nowhere is the `unknown` body (§15.3: indistinguishable). An
 * account where they hold no seat — or that does not exist — is `404`, the same for every agent id.
 * Without `?account=`: the person's only account; with seats in several it is a `400` naming the
 * parameter, never a guess.
 */
import { db } from "../db";
import { HubError } from "../protocol/errors";
import { seatBySlug, seatsOf } from "../principals/seats";
import { presenceOf, type Presence } from "./state";

export async function presenceForHuman(userId: string, agentId: string, accountSlug: string | null): Promise<Presence> {
  const accountId = await accountOf(userId, accountSlug);
  const agent = accountId
    ? await db().agent.findUnique({
        where: { accountId_agentId: { accountId, agentId } },
        select: { lastSeenAt: true },
      })
    : null;
  return presenceOf(agentId, agent?.lastSeenAt ?? null);
}

/** The account the read is about, or null for a person with no seat at all (nothing is theirs). */
async function accountOf(userId: string, slug: string | null): Promise<string | null> {
  if (slug !== null) {
    const seat = await seatBySlug(userId, slug);
    if (!seat) throw new HubError("not_found", `account ${slug} not found`);
    return seat.accountId;
  }
  const seats = await seatsOf(userId);
  if (seats.length > 1)
    throw new HubError(
      "validation_error",
      "account: required — you hold seats in several accounts; name the agent's with ?account=<slug>",
    );
  return seats[0]?.accountId ?? null;
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
  const m = /^\/v1\/agents\/(.+)\/presence\/?$/u.exec(pathname);
  if (!m?.[1]) return null;
  try {
    const id = decodeURIComponent(m[1]);
    return id.length > 0 ? id : null;
  } catch {
    return null; // malformed percent-encoding names no agent
  }
}

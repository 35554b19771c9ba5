/**
 * Who may still approve, read now, with the vote's read (docs/policies.md "Quorum"): a
 * vote counts only while its person is eligible — seated in the account with a role that answers,
 * among the people the routing asked at submit, and not a sponsor of the agent when the quorum
 * excludes sponsors (today's sponsors: one who became a sponsor since voting no longer counts). A
 * vote covers a `require_from` group when its person was in the group at submit and still is:
 * eligibility only narrows after submit, except by the hand-overs and escalations the routing
 * records (lib/assignment/), never beyond §9.1 (choice recorded in docs/decisions/approval-policies.md).
 * A delegate's vote (docs/policies.md "Delegation") takes the place of the person it was cast for:
 * it counts while that person is still asked and the delegate may answer at all; it covers the
 * `require_from` groups the delegate is in, not the delegator's.
 */
import type { Tx } from "../db";
import type { Routing } from "../policies/evaluate";
import { sponsorHandlesByAgent } from "../principals/sponsors";
import { RESOLVING_ROLES, type Role } from "../principals/types";

/** One voter as they are now. */
export interface VoterNow {
  handle: string;
  /** Whose place the vote takes: the person a delegate voted for, else the voter. A person counts once. */
  as: string;
  /** Why their vote does not count, or null when it does. */
  ineligible: string | null;
  /** The `require_from` groups their vote covers. */
  groups: string[];
}

/** One ask's voters to judge: the message, its recorded routing, and the seats that voted on it. */
export interface VotersOf {
  message: { accountId: string; agentRowId: string };
  routing: Routing;
  membershipIds: readonly string[];
  /** Per seat id, the person its vote was cast for (a delegate's), when not its own. */
  onBehalfOf?: ReadonlyMap<string, string | null>;
}

/**
 * The voters named by seat id (their membership rows), as they are now. A seat that is gone has no
 * entry: its votes went with it.
 */
export async function votersNow(
  tx: Tx,
  message: { accountId: string; agentRowId: string },
  routing: Routing,
  membershipIds: readonly string[],
  onBehalfOf?: ReadonlyMap<string, string | null>,
): Promise<Map<string, VoterNow>> {
  const [one] = await votersNowOf(tx, [{ message, routing, membershipIds, onBehalfOf }]);
  return one ?? new Map();
}

/**
 * `votersNow` of several asks at once, in the order given — two queries however many asks (the
 * inbox list's approval lines, lib/approvals/state.ts): the seats with the `require_from` groups
 * they are in now, and the sponsors now of the agents whose quorum excludes them.
 */
export async function votersNowOf(q: Tx, asks: readonly VotersOf[]): Promise<Array<Map<string, VoterNow>>> {
  const ids = [...new Set(asks.flatMap((a) => a.membershipIds))];
  const wanted = [...new Set(asks.flatMap((a) => a.routing.quorum?.require_from.map((g) => g.group) ?? []))];
  const excluding = asks.filter((a) => a.routing.quorum?.exclude_sponsors).map((a) => a.message.agentRowId);
  const [seats, sponsors] = await Promise.all([
    ids.length === 0
      ? Promise.resolve([])
      : q.membership.findMany({
          where: { id: { in: ids } },
          select: {
            id: true,
            accountId: true,
            handle: true,
            role: true,
            groups: { where: { group: { name: { in: wanted } } }, select: { group: { select: { name: true } } } },
          },
        }),
    sponsorHandlesByAgent(excluding, q),
  ]);
  return votersOf(
    asks,
    seats.map((s) => ({ ...s, groups: s.groups.map((g) => g.group.name) })),
    sponsors,
  );
}

/** A voter's seat as it is now: its role, and the `require_from` groups (of those asked about) it is in. */
export interface SeatNow {
  id: string;
  accountId: string;
  handle: string;
  role: string;
  groups: readonly string[];
}

/**
 * `votersNowOf` over rows already read — the seats, and the sponsors now by agent row id (the people
 * `sponsorHandlesByAgent` names) — for a caller that reads them with the rest of its rows in one
 * statement (a vote, lib/messages/approvals.sql.ts).
 */
export function votersOf(
  asks: readonly VotersOf[],
  seats: readonly SeatNow[],
  sponsors: ReadonlyMap<string, readonly string[]>,
): Array<Map<string, VoterNow>> {
  const byId = new Map(seats.map((s) => [s.id, s]));
  return asks.map(({ message, routing, membershipIds, onBehalfOf }) => {
    const quorum = routing.quorum;
    const sponsorsNow = quorum?.exclude_sponsors ? (sponsors.get(message.agentRowId) ?? []) : [];
    const out = new Map<string, VoterNow>();
    for (const id of membershipIds) {
      const s = byId.get(id);
      if (s === undefined || s.accountId !== message.accountId) continue;
      const now = new Set(s.groups);
      const groups = (quorum?.require_from ?? [])
        .filter((g) => g.members.includes(s.handle) && now.has(g.group))
        .map((g) => g.group);
      const own = routing.eligible.includes(s.handle);
      const forWhom = own ? null : (onBehalfOf?.get(id) ?? null);
      let ineligible: string | null = null;
      if (!RESOLVING_ROLES.includes(s.role as Role)) ineligible = `role ${s.role} may read but not resolve`;
      else if (!own && (forWhom === null || !routing.eligible.includes(forWhom)))
        ineligible = `the account's approval policy (${routing.rules.join(", ")}) does not ask you`;
      else if (quorum?.exclude_sponsors && sponsorsNow.includes(s.handle))
        ineligible = `the account's approval policy (rule ${quorum.exclude_sponsors.rule}) does not ask you: sponsor of this agent`;
      else if (quorum?.exclude_sponsors && forWhom !== null && sponsorsNow.includes(forWhom))
        ineligible = `the account's approval policy (rule ${quorum.exclude_sponsors.rule}) no longer asks ${forWhom}: sponsor of this agent`;
      out.set(s.id, { handle: s.handle, as: forWhom ?? s.handle, ineligible, groups });
    }
    return out;
  });
}

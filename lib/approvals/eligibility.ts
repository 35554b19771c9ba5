/**
 * Who may still approve, read now, inside the vote's transaction (docs/policies.md "Quorum"): a
 * vote counts only while its person is eligible — seated in the account with a role that answers,
 * among the people the routing asked at submit, and not a sponsor of the agent when the quorum
 * excludes sponsors (today's sponsors: one who became a sponsor since voting no longer counts). A
 * vote covers a `require_from` group when its person was in the group at submit and still is:
 * eligibility only narrows after submit, as the routing never widens (choice recorded in
 * docs/decisions/approval-policies.md).
 */
import type { Tx } from "../db";
import type { Routing } from "../policies/evaluate";
import { sponsorHandles } from "../principals/sponsors";
import { RESOLVING_ROLES, type Role } from "../principals/types";

/** One voter as they are now. */
export interface VoterNow {
  handle: string;
  /** Why their vote does not count, or null when it does. */
  ineligible: string | null;
  /** The `require_from` groups their vote covers. */
  groups: string[];
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
): Promise<Map<string, VoterNow>> {
  const quorum = routing.quorum;
  const wanted = quorum?.require_from.map((g) => g.group) ?? [];
  const [seats, sponsors] = await Promise.all([
    tx.membership.findMany({
      where: { id: { in: [...membershipIds] }, accountId: message.accountId },
      select: {
        id: true,
        handle: true,
        role: true,
        groups: { where: { group: { name: { in: wanted } } }, select: { group: { select: { name: true } } } },
      },
    }),
    quorum?.exclude_sponsors ? sponsorHandles(message.agentRowId, tx) : Promise.resolve([] as string[]),
  ]);
  const out = new Map<string, VoterNow>();
  for (const s of seats) {
    const now = new Set(s.groups.map((g) => g.group.name));
    const groups = (quorum?.require_from ?? [])
      .filter((g) => g.members.includes(s.handle) && now.has(g.group))
      .map((g) => g.group);
    let ineligible: string | null = null;
    if (!RESOLVING_ROLES.includes(s.role as Role)) ineligible = `role ${s.role} may read but not resolve`;
    else if (!routing.eligible.includes(s.handle))
      ineligible = `the account's approval policy (${routing.rules.join(", ")}) does not ask you`;
    else if (quorum?.exclude_sponsors && sponsors.includes(s.handle))
      ineligible = `the account's approval policy (rule ${quorum.exclude_sponsors.rule}) does not ask you: sponsor of this agent`;
    out.set(s.id, { handle: s.handle, ineligible, groups });
  }
  return out;
}

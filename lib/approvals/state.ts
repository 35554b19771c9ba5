/**
 * The approvals of an ask a quorum rule routed, for display (docs/policies.md "Quorum"): how many
 * it needs, how many each answer has, and every vote with its person, answer, comment and time —
 * marked when its person is no longer eligible. Channels format it with `approvalsLine`
 * (lib/approvals/tally.ts), so "1 of 2 approvals — alice: approve" reads the same everywhere.
 */
import { db } from "../db";
import { routingOf } from "../policies/routing";
import { votersNow } from "./eligibility";
import { type ApprovalState, tally, voteKey } from "./tally";

/** The ask's approvals, or null when no quorum rule routed it (or there is no such message). */
export async function readApprovals(messageId: string): Promise<ApprovalState | null> {
  const row = await db().message.findUnique({
    where: { id: messageId },
    select: { accountId: true, agentRowId: true, routing: true },
  });
  const routing = row ? routingOf(row) : null;
  if (!row || !routing?.quorum) return null;
  const votes = await db().approvalVote.findMany({ where: { messageId }, orderBy: [{ at: "asc" }, { handle: "asc" }] });
  const voters = await votersNow(
    db(),
    row,
    routing,
    votes.map((v) => v.membershipId),
  );
  const shown = votes.map((v) => {
    const key = voteKey({ resolution: v.resolution, value: v.value === null ? undefined : JSON.parse(v.value) });
    const now = voters.get(v.membershipId);
    return {
      handle: v.handle,
      key,
      groups: now?.groups ?? [],
      counts: now?.ineligible === null,
      comment: v.comment,
      at: v.at,
    };
  });
  const { need, have } = tally(routing.quorum, shown);
  return {
    need,
    have,
    votes: shown.map((v) => ({ handle: v.handle, value: v.key, comment: v.comment, at: v.at, counts: v.counts })),
  };
}

/**
 * The approvals of an ask a quorum rule routed, for display (docs/policies.md "Quorum"): how many
 * it needs, how many each answer has, and every vote with its person, answer, comment and time —
 * marked when its person is no longer eligible. Channels format it with `approvalsLine`
 * (lib/approvals/tally.ts), so "1 of 2 approvals — alice: approve" reads the same everywhere.
 */
import { db, type Tx } from "../db";
import { routingOf } from "../policies/routing";
import { votersNowOf } from "./eligibility";
import { type ApprovalState, tally, voteKey } from "./tally";

/** A message row as far as its approvals need it. */
export interface ApprovalsRow {
  id: string;
  accountId: string;
  agentRowId: string;
  routing: string | null;
}

/** The ask's approvals, or null when no quorum rule routed it (or there is no such message). */
export async function readApprovals(messageId: string): Promise<ApprovalState | null> {
  const row = await db().message.findUnique({
    where: { id: messageId },
    select: { id: true, accountId: true, agentRowId: true, routing: true },
  });
  return row ? ((await readApprovalsOf([row])).get(messageId) ?? null) : null;
}

/**
 * The approvals of several messages by id — the inbox list's, in three queries however many rows
 * (the votes, the voters' seats, the sponsors): only the messages a quorum rule routed have an
 * entry, with or without votes.
 */
export async function readApprovalsOf(
  rows: readonly ApprovalsRow[],
  q: Tx = db(),
): Promise<Map<string, ApprovalState>> {
  const routed = rows.flatMap((row) => {
    const routing = routingOf(row);
    return routing?.quorum ? [{ row, routing, quorum: routing.quorum }] : [];
  });
  if (routed.length === 0) return new Map();
  const votes = await q.approvalVote.findMany({
    where: { messageId: { in: routed.map((r) => r.row.id) } },
    orderBy: [{ at: "asc" }, { handle: "asc" }],
  });
  const byMessage = new Map<string, typeof votes>();
  for (const v of votes) byMessage.set(v.messageId, [...(byMessage.get(v.messageId) ?? []), v]);
  const votesOf = (id: string) => byMessage.get(id) ?? [];
  const voters = await votersNowOf(
    q,
    routed.map(({ row, routing }) => ({
      message: row,
      routing,
      membershipIds: votesOf(row.id).map((v) => v.membershipId),
      onBehalfOf: new Map(votesOf(row.id).map((v) => [v.membershipId, v.forHandle])),
    })),
  );
  return new Map(
    routed.map(({ row, quorum }, i) => {
      const now = voters[i] ?? new Map();
      const shown = votesOf(row.id).map((v) => {
        const key = voteKey({ resolution: v.resolution, value: v.value === null ? undefined : JSON.parse(v.value) });
        const voter = now.get(v.membershipId);
        return {
          handle: v.handle,
          as: voter?.as ?? v.handle,
          forHandle: v.forHandle,
          key,
          groups: voter?.groups ?? [],
          counts: voter?.ineligible === null,
          comment: v.comment,
          at: v.at,
        };
      });
      const { need, have } = tally(quorum, shown);
      const state: ApprovalState = {
        need,
        have,
        votes: shown.map((v) => ({
          handle: v.handle,
          value: v.key,
          comment: v.comment,
          at: v.at,
          counts: v.counts,
          ...(v.forHandle === null ? {} : { forHandle: v.forHandle }),
        })),
      };
      return [row.id, state];
    }),
  );
}

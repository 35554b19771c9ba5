/**
 * The quorum count (docs/policies.md "Quorum"): which recorded votes count, whether one answer has
 * its approvals, and the one line every channel shows ("1 of 2 approvals — alice: approve"). Pure:
 * the caller brings the recorded quorum (lib/policies/evaluate.ts) and each vote with its person's
 * eligibility now (lib/approvals/eligibility.ts).
 */
import { jcs } from "@ma2h/protocol/jcs";
import type { Quorum } from "../policies/evaluate";

/** One person's vote as the count reads it. */
export interface CountedVote {
  handle: string;
  /**
   * Whose place the vote takes (docs/policies.md "Delegation"): a delegate's vote counts for the
   * person it was cast for, so that person and their delegate agreeing count once. Default: `handle`.
   */
  as?: string;
  /** What the vote answers: an option's value, or the resolution for a vote without one (`completed`). */
  key: string;
  /** Whether the person is still eligible (a vote of someone no longer eligible does not count). */
  counts: boolean;
  /** The `require_from` groups this vote covers: the person was in it at submit and still is. */
  groups: readonly string[];
}

export interface Tally {
  /** M. */
  need: number;
  /** How many counting votes each answer has. */
  have: Record<string, number>;
  /** The answer that has its approvals and every `require_from` group covered, or null. */
  complete: string | null;
}

/** The count of the votes under the quorum. */
export function tally(quorum: Quorum, votes: readonly CountedVote[]): Tally {
  // Distinct people per answer: a delegate's vote and its delegator's are one person's place.
  const places: Record<string, Set<string>> = {};
  for (const v of votes) {
    if (!v.counts) continue;
    const place = places[v.key] ?? new Set<string>();
    place.add(v.as ?? v.handle);
    places[v.key] = place;
  }
  const have: Record<string, number> = Object.fromEntries(Object.entries(places).map(([k, p]) => [k, p.size]));
  const complete =
    Object.keys(have).find(
      (key) =>
        (have[key] ?? 0) >= quorum.approvals &&
        quorum.require_from.every((g) => votes.some((v) => v.counts && v.key === key && v.groups.includes(g.group))),
    ) ?? null;
  return { need: quorum.approvals, have, complete };
}

/**
 * The `require_from` groups an answer still lacks once it already has its approvals from others,
 * when `voter` is in none of them — their vote for it could change nothing, so it is refused
 * naming the groups ("not in group sre"). Empty when the vote can help.
 */
export function groupsStillNeeded(
  quorum: Quorum,
  votes: readonly CountedVote[],
  voter: Pick<CountedVote, "handle" | "as" | "key" | "groups">,
): string[] {
  const others = votes.filter((v) => v.counts && v.key === voter.key && v.handle !== voter.handle);
  if (new Set(others.map((v) => v.as ?? v.handle)).size < quorum.approvals) return [];
  const missing = quorum.require_from.map((g) => g.group).filter((g) => !others.some((v) => v.groups.includes(g)));
  return missing.some((g) => voter.groups.includes(g)) ? [] : missing;
}

/** What a display shows of an open ask's approvals (lib/approvals/state.ts reads it). */
export interface ApprovalState {
  need: number;
  have: Record<string, number>;
  votes: Array<{
    handle: string;
    value: string;
    comment: string | null;
    at: Date;
    counts: boolean;
    /** The person a delegate voted for (docs/policies.md "Delegation"). */
    forHandle?: string;
  }>;
}

/**
 * The one line every channel shows: "1 of 2 approvals — alice: approve, bob: deny". The count is
 * the best-supported answer's; a vote that no longer counts is marked "(not counted)". `times`
 * formats each vote's time after it ("alice: approve, 10:02"), for the pages that show them.
 */
export function approvalsLine(state: ApprovalState, times?: (at: Date) => string): string {
  const best = Math.max(0, ...Object.values(state.have));
  const head = `${best} of ${state.need} approval${state.need === 1 ? "" : "s"}`;
  if (state.votes.length === 0) return head;
  const each = state.votes.map(
    (v) =>
      `${v.handle}${v.forHandle ? ` for ${v.forHandle}` : ""}: ${v.value}${times ? `, ${times(v.at)}` : ""}${v.counts ? "" : " (not counted)"}`,
  );
  return `${head} — ${each.join("; ")}`;
}

/** What a vote answers, as the count compares it: an option's value, or the resolution itself. */
export function voteKey(v: { resolution: string; value?: unknown }): string {
  if (v.resolution !== "answered") return v.resolution;
  return typeof v.value === "string" ? v.value : jcs(v.value);
}

/**
 * What the quorum asks, in one sentence for a notification ("It needs 2 approvals of the same answer,
 * one of them from sre."), or null when it asks no more than one answer (a rule that only excludes
 * sponsors: they are simply not asked).
 */
export function quorumNeeds(quorum: Quorum): string | null {
  const groups = quorum.require_from.map((g) => g.group);
  if (quorum.approvals <= 1 && groups.length === 0) return null;
  const many = quorum.approvals > 1 ? `${quorum.approvals} approvals of the same answer` : "an approval";
  const from =
    groups.length === 0 ? "" : `, ${quorum.approvals > 1 ? "one of them " : ""}from ${groups.join(" and from ")}`;
  return `It needs ${many}${from}.`;
}

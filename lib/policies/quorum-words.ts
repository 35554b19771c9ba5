/**
 * A recorded quorum (lib/policies/evaluate.ts) in words, for the admin page's tester (a client
 * component, so this file imports types only) and `ma2h-hub policy test`.
 */
import type { Escalation, Quorum } from "./evaluate";

/** A quorum in words, for the tester and `ma2h-hub policy test`: each requirement with its rule. */
export function describeQuorum(q: Quorum): string {
  const parts = [
    q.approvals > 1 ? `${q.approvals} approvals of the same answer (rule ${q.approvals_rule})` : "1 approval",
    ...q.require_from.map((g) => `one from ${g.group} (rule ${g.rule})`),
  ];
  if (q.exclude_sponsors)
    parts.push(
      `never the agent's sponsors${q.exclude_sponsors.sponsors.length ? ` (${q.exclude_sponsors.sponsors.map((h) => `human:${h}`).join(", ")})` : ""} (rule ${q.exclude_sponsors.rule})`,
    );
  if (q.veto) parts.push(`one deny ends it (rule ${q.veto.rule})`);
  return parts.join("; ");
}

/** An escalation in words (docs/policies.md "Escalation"), for the tester and `ma2h-hub policy test`. */
export function describeEscalation(e: Escalation): string {
  return `after ${e.after} with no answer, ${e.to} is assigned and told (rule ${e.rule})`;
}

/**
 * A standing rule's scope and its match (docs/policies.md "Standing rules"). Pure: no I/O.
 *
 * The scope always holds the attested agent id, the ask's mode and its exact option values (in
 * order) — a rule made on "Deploy to staging? approve/deny" never answers a select with other
 * options — and the remembered value is one of them. A project, tags (all of them) and a title
 * pattern only narrow it. Which asks a rule may ever answer at all is `ruleEligibility`.
 */
import { effectiveOptions } from "@ma2h/protocol/ask-contract";
import type { Message } from "@ma2h/protocol/message";
import type { Routing } from "../policies/evaluate";

/** What a rule matches: the part of a `standing_rules` row the match reads. */
export interface RuleScope {
  agentId: string;
  mode: "confirm" | "select";
  /** The option values, in order. */
  options: string[];
  project: string | null;
  tags: string[];
  titlePattern: string | null;
}

/** The longest title pattern a rule may hold. */
export const MAX_TITLE_PATTERN = 200;

/** `*` any characters, `?` one, everything else literal; the whole title, case-sensitive. */
export function titleGlob(pattern: string): RegExp {
  const body = [...pattern]
    .map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[\\^$.|+()[\]{}]/g, "\\$&")))
    .join("");
  return new RegExp(`^${body}$`, "su");
}

/** The option values of a confirm or select ask, in order (§5.2: a confirm's are approve/deny). */
export function optionValues(message: Message): string[] | null {
  if (message.type !== "ask" || message.request.mode === "input") return null;
  return effectiveOptions(message.request).map((o) => o.value);
}

/**
 * Why no standing rule may answer this ask, or null when one may (docs/policies.md "Standing
 * rules", "Never"): only confirm and select asks; never one with an explicit `allowed_resolvers`
 * (§9.1: only the people it names answer), a sensitive one, one whose request insists on a person
 * (`"x-ma2h-human-only": true`), or one whose recorded policy needs more than one approval or one
 * from a group.
 */
export function ruleEligibility(message: Message, routing: Routing | null): string | null {
  if (message.type !== "ask") return "only asks are answered by standing rules";
  if (message.request.mode === "input") return "an input ask is answered by a person";
  if (message.request.allowed_resolvers !== undefined) return "the ask names who may answer it (allowed_resolvers)";
  if (message.sensitive === true) return "the ask is marked sensitive";
  if ((message.request as Record<string, unknown>)["x-ma2h-human-only"] === true)
    return "the agent asked for a person's answer (x-ma2h-human-only)";
  const quorum = routing?.quorum;
  if (quorum && (quorum.approvals > 1 || quorum.require_from.length > 0))
    return "the approval policy needs more than one approval, or one from a group";
  return null;
}

/** Whether the rule's scope covers the ask (its eligibility aside). */
export function scopeMatches(scope: RuleScope, message: Message, attestedAgentId: string): boolean {
  if (message.type !== "ask" || message.request.mode !== scope.mode) return false;
  if (attestedAgentId !== scope.agentId) return false;
  const values = optionValues(message);
  if (values === null || values.length !== scope.options.length || values.some((v, i) => v !== scope.options[i]))
    return false;
  const project = (message.agent as { project?: string }).project;
  if (scope.project !== null && project !== scope.project) return false;
  const tags = message.tags ?? [];
  if (!scope.tags.every((t) => tags.includes(t))) return false;
  if (scope.titlePattern !== null && !titleGlob(scope.titlePattern).test(message.title)) return false;
  return true;
}

/** The scope in words, as the form shows it before saving and the lists show it after. */
export function describeScope(scope: RuleScope & { value: string }): string {
  const parts = [
    `${scope.mode} asks from agent ${scope.agentId}`,
    `with options ${scope.options.join(" / ")}`,
    ...(scope.project !== null ? [`in project ${scope.project}`] : []),
    ...(scope.tags.length > 0 ? [`tagged ${scope.tags.join(", ")}`] : []),
    ...(scope.titlePattern !== null ? [`titled like "${scope.titlePattern}"`] : []),
  ];
  return `${parts.join(", ")}: answer ${scope.value}`;
}

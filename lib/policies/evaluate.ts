/**
 * Which rules of an account's approval policy apply to an ask or task, what they add up to, and who
 * that leaves able to answer — the one function the submit, the notifications and the tester use
 * (docs/policies.md). Pure: the caller brings the policy, the message and the account's people.
 *
 * Every matching rule applies and the effective policy is the strictest combination: the people
 * eligible are those every matching rule assigns (its people, and the members of its groups), who
 * may answer at all (an answering role), and whom the ask's own `allowed_resolvers` lists when it has
 * one — a policy narrows, never widens (§9.1). Mail carries one-click answers only if every matching
 * rule allows it. No rule matching is the default policy: nothing is recorded and §9.1 applies as is.
 */
import type { Message } from "@ma2h/protocol/message";
import { RESOLVING_ROLES, type Role } from "../principals/types";
import { agentGlob, durationMs, PRIORITIES, type Rule, type Verb } from "./model";

/** What a rule can match on, taken from a message. Only `agentId` is attested by the Hub. */
export interface AskFacts {
  agentId: string;
  verb: Verb;
  mode?: string;
  project?: string;
  tags: string[];
  labels: Record<string, string>;
  priority: string;
  /** The ask's explicit `allowed_resolvers`, when it has one. */
  allowedResolvers?: string[];
}

/** The facts of a human-inbox ask or task; null for anything policies do not govern (a notify, a `to`). */
export function factsOf(message: Message, attestedAgentId: string): AskFacts | null {
  if (message.type === "notify" || message.to !== undefined) return null;
  const agent = message.agent as { project?: string; labels?: Record<string, string> };
  return {
    agentId: attestedAgentId,
    verb: message.type,
    mode: message.type === "ask" ? message.request.mode : undefined,
    project: agent.project,
    tags: message.tags ?? [],
    labels: agent.labels ?? {},
    priority: message.priority ?? "normal",
    allowedResolvers: message.type === "ask" ? message.request.allowed_resolvers : message.action.allowed_resolvers,
  };
}

const rank = (p: string) => PRIORITIES.indexOf(p as (typeof PRIORITIES)[number]);

/** Whether every condition of the rule holds for the facts. */
export function ruleMatches(rule: Rule, f: AskFacts): boolean {
  const m = rule.match;
  if (m.agent !== undefined && !agentGlob(m.agent).test(f.agentId)) return false;
  if (m.project !== undefined && f.project !== m.project) return false;
  if (m.tags_any !== undefined && !m.tags_any.some((t) => f.tags.includes(t))) return false;
  if (m.tags_all !== undefined && !m.tags_all.every((t) => f.tags.includes(t))) return false;
  if (m.labels !== undefined && !Object.entries(m.labels).every(([k, v]) => f.labels[k] === v)) return false;
  if (m.priority !== undefined && rank(f.priority) < rank(m.priority)) return false;
  if (m.verb !== undefined && !m.verb.includes(f.verb)) return false;
  if (m.mode !== undefined && (f.mode === undefined || !(m.mode as string[]).includes(f.mode))) return false;
  return true;
}

/** The account's people as the evaluation needs them. */
export interface Directory {
  members: Array<{ handle: string; role: Role }>;
  /** Group name → its members' handles (the groups the rules name; an unknown one is empty). */
  groups: ReadonlyMap<string, readonly string[]>;
  /** The people the agent's sponsors stand for (lib/principals/sponsors.ts); read when a rule excludes them. */
  sponsors?: readonly string[];
}

/**
 * The quorum the matching rules add up to (docs/policies.md "Quorum"), recorded with the routing so
 * the count, like who is asked, is what it was at submit. Each requirement names the rule it came
 * from, for the refusals that cite it. The strictest combination: the most approvals any rule asks,
 * every `require_from` group of every rule (each needing one approval of its own members), sponsors
 * excluded if any rule excludes them, a veto if any rule gives one.
 */
export interface Quorum {
  /** M: how many distinct eligible people must give the same answer. */
  approvals: number;
  /** The first rule asking for M (null when M is 1). */
  approvals_rule: string | null;
  /** Each group one approval must come from, with the rule naming it and its members at submit. */
  require_from: Array<{ group: string; rule: string; members: string[] }>;
  /** The agent's sponsors at submit, who may not answer; null when no rule excludes them. */
  exclude_sponsors: { rule: string; sponsors: string[] } | null;
  /** Whether one eligible `deny` of a confirm ask ends it; null when no rule gives a veto. */
  veto: { rule: string } | null;
}

/** What is recorded on a message when a rule matched (lib/policies/routing.ts stores it as JSON). */
export interface Routing {
  /** The matching rules' names, in the policy's order. */
  rules: string[];
  /** The handles of the people who may answer, sorted. */
  eligible: string[];
  /** Whether notification mail may carry one-click answers. */
  email_answers: boolean;
  /** Present when a matching rule has a quorum key (`approvals`, `require_from`, `exclude_sponsors`, `veto`). */
  quorum?: Quorum;
  /** Present when a matching rule escalates (`escalate_after`): the earliest one's. */
  escalation?: Escalation;
  /** The hand-overs and escalations since submit, oldest first (lib/assignment/). */
  assigned?: Assignment[];
}

/** When nobody has answered in time, who is assigned and told (docs/policies.md "Escalation"). */
export interface Escalation {
  /** The rule whose `escalate_after` is the earliest of the matching rules'. */
  rule: string;
  /** Its `escalate_after` as written, and in milliseconds after submit. */
  after: string;
  after_ms: number;
  /** Its `escalate_to`: `human:<handle>` or `group:<name>`. */
  to: string;
}

/**
 * An open ask handed on (`reassign`) or escalated by the policy (`escalation`), recorded on its
 * routing: the people it added to those who may answer, and those it only told — §9.1: nothing
 * widens an explicit `allowed_resolvers`.
 */
export interface Assignment {
  /** As named: `human:<handle>` or `group:<name>`. */
  to: string;
  /** The people it made eligible (or who already were), sorted. */
  handles: string[];
  /** The people it told who may not answer, sorted. */
  told: string[];
  via: "reassign" | "escalation";
  /** The attested actor who handed it on, or `system:policy` for an escalation. */
  by: string;
  /** ISO-8601. */
  at: string;
}

export interface Exclusion {
  handle: string;
  /** Every reason, in words, e.g. "not assigned by rule prod-deploys". */
  reasons: string[];
}

export interface Evaluation {
  /** The rules that matched, in the policy's order. */
  matched: Rule[];
  /** null: no rule matched — the default policy. */
  routing: Routing | null;
  /** The members who may not answer, and why (the tester shows them). */
  excluded: Exclusion[];
  /** Why a submit of this ask is refused `422` (too few eligible for its quorum), or null. */
  refusal: string | null;
}

/** The people a rule's `assign` stands for. */
export function assignedHandles(rule: Rule, groups: Directory["groups"]): Set<string> {
  const out = new Set<string>();
  for (const ref of rule.assign) {
    if (ref.startsWith("human:")) out.add(ref.slice("human:".length));
    else for (const h of groups.get(ref.slice("group:".length)) ?? []) out.add(h);
  }
  return out;
}

/** The rules that match, the routing they add up to, and who is excluded and why. */
export function evaluatePolicy(rules: readonly Rule[], facts: AskFacts, directory: Directory): Evaluation {
  const matched = rules.filter((r) => ruleMatches(r, facts));
  const assigned = matched.map((r) => ({ rule: r, handles: assignedHandles(r, directory.groups) }));
  const listed = facts.allowedResolvers;
  const excluding = matched.find((r) => r.exclude_sponsors === true);
  const sponsors = new Set(excluding ? (directory.sponsors ?? []) : []);
  const eligible: string[] = [];
  const excluded: Exclusion[] = [];
  for (const m of directory.members) {
    const reasons: string[] = [];
    if (!RESOLVING_ROLES.includes(m.role)) reasons.push(`the ${m.role} role may read but not answer`);
    if (listed !== undefined && !listed.includes(`human:${m.handle}`))
      reasons.push("not in the ask's allowed_resolvers");
    for (const a of assigned) if (!a.handles.has(m.handle)) reasons.push(`not assigned by rule ${a.rule.name}`);
    if (excluding && sponsors.has(m.handle)) reasons.push(`sponsor of this agent (rule ${excluding.name})`);
    if (reasons.length === 0) eligible.push(m.handle);
    else excluded.push({ handle: m.handle, reasons });
  }
  eligible.sort();
  excluded.sort((a, b) => a.handle.localeCompare(b.handle));
  if (matched.length === 0) return { matched, routing: null, excluded, refusal: null };
  const quorum = quorumOf(matched, directory);
  const escalation = escalationOf(matched);
  return {
    matched,
    routing: {
      rules: matched.map((r) => r.name),
      eligible,
      email_answers: matched.every((r) => r.email_answers !== false),
      ...(quorum ? { quorum } : {}),
      ...(escalation ? { escalation } : {}),
    },
    excluded,
    refusal: quorum ? quorumShortfall(quorum, eligible) : null,
  };
}

/** The strictest combination of the matching rules' quorum keys, or null when none has one. */
export function quorumOf(matched: readonly Rule[], directory: Directory): Quorum | null {
  const keyed = matched.filter(
    (r) => (r.approvals ?? 1) > 1 || r.require_from !== undefined || r.exclude_sponsors === true || r.veto === true,
  );
  if (keyed.length === 0) return null;
  const approvals = Math.max(1, ...matched.map((r) => r.approvals ?? 1));
  const require_from: Quorum["require_from"] = [];
  for (const r of matched)
    if (r.require_from !== undefined && !require_from.some((g) => g.group === r.require_from))
      require_from.push({
        group: r.require_from,
        rule: r.name,
        members: [...(directory.groups.get(r.require_from) ?? [])].sort(),
      });
  const excluding = matched.find((r) => r.exclude_sponsors === true);
  const vetoing = matched.find((r) => r.veto === true);
  return {
    approvals,
    approvals_rule: approvals > 1 ? (matched.find((r) => r.approvals === approvals)?.name ?? null) : null,
    require_from,
    exclude_sponsors: excluding ? { rule: excluding.name, sponsors: [...(directory.sponsors ?? [])].sort() } : null,
    veto: vetoing ? { rule: vetoing.name } : null,
  };
}

/** The escalation of the matching rules: the earliest `escalate_after` wins (ties: the first rule), or null. */
export function escalationOf(matched: readonly Rule[]): Escalation | null {
  let best: Escalation | null = null;
  for (const r of matched) {
    if (r.escalate_after === undefined || r.escalate_to === undefined) continue;
    const ms = durationMs(r.escalate_after);
    if (ms !== null && (best === null || ms < best.after_ms))
      best = { rule: r.name, after: r.escalate_after, after_ms: ms, to: r.escalate_to };
  }
  return best;
}

/**
 * Why a quorum cannot be met by the people eligible at submit — fewer than M of them, or none in a
 * `require_from` group — naming the rule; null when it can. The submit refuses such an ask `422`.
 */
export function quorumShortfall(quorum: Quorum, eligible: readonly string[]): string | null {
  const n = eligible.length;
  if (quorum.approvals > 1 && n < quorum.approvals)
    return `the account's approval policy: ${quorum.approvals_rule} needs ${quorum.approvals} approvers; ${n} ${n === 1 ? "is" : "are"} eligible`;
  for (const g of quorum.require_from)
    if (!g.members.some((h) => eligible.includes(h)))
      return `the account's approval policy: ${g.rule} needs an approver from ${g.group}; none of ${g.group} is eligible`;
  return null;
}

/** The groups a list of rules names, in `assign` or `require_from` (what a Directory must hold for them). */
export function groupsNamed(rules: readonly Rule[]): string[] {
  return [
    ...new Set(
      rules.flatMap((r) => [
        ...[...r.assign, ...(r.escalate_to === undefined ? [] : [r.escalate_to])]
          .filter((a) => a.startsWith("group:"))
          .map((a) => a.slice(6)),
        ...(r.require_from === undefined ? [] : [r.require_from]),
      ]),
    ),
  ].sort();
}

/** Whether any rule excludes the agent's sponsors (the Directory then needs them). */
export function excludesSponsors(rules: readonly Rule[]): boolean {
  return rules.some((r) => r.exclude_sponsors === true);
}

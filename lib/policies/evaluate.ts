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
import { agentGlob, PRIORITIES, type Rule, type Verb } from "./model";

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
}

/** What is recorded on a message when a rule matched (lib/policies/routing.ts stores it as JSON). */
export interface Routing {
  /** The matching rules' names, in the policy's order. */
  rules: string[];
  /** The handles of the people who may answer, sorted. */
  eligible: string[];
  /** Whether notification mail may carry one-click answers. */
  email_answers: boolean;
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
  const eligible: string[] = [];
  const excluded: Exclusion[] = [];
  for (const m of directory.members) {
    const reasons: string[] = [];
    if (!RESOLVING_ROLES.includes(m.role)) reasons.push(`the ${m.role} role may read but not answer`);
    if (listed !== undefined && !listed.includes(`human:${m.handle}`))
      reasons.push("not in the ask's allowed_resolvers");
    for (const a of assigned) if (!a.handles.has(m.handle)) reasons.push(`not assigned by rule ${a.rule.name}`);
    if (reasons.length === 0) eligible.push(m.handle);
    else excluded.push({ handle: m.handle, reasons });
  }
  eligible.sort();
  excluded.sort((a, b) => a.handle.localeCompare(b.handle));
  if (matched.length === 0) return { matched, routing: null, excluded };
  return {
    matched,
    routing: {
      rules: matched.map((r) => r.name),
      eligible,
      email_answers: matched.every((r) => r.email_answers !== false),
    },
    excluded,
  };
}

/** The groups a list of rules names (what a Directory must hold for them). */
export function groupsNamed(rules: readonly Rule[]): string[] {
  return [
    ...new Set(rules.flatMap((r) => r.assign.filter((a) => a.startsWith("group:")).map((a) => a.slice(6)))),
  ].sort();
}

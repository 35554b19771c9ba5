// covers: lib/policies/evaluate.ts, lib/policies/model.ts
import { describe, expect, it } from "vitest";
import { type AskFacts, type Directory, escalationOf, evaluatePolicy, ruleMatches } from "./evaluate";
import { agentGlob, durationMs, RuleSchema, RulesSchema } from "./model";

const rule = (r: Record<string, unknown>) => RuleSchema.parse({ name: "r", assign: ["human:alice"], ...r });
const facts = (f: Partial<AskFacts> = {}): AskFacts => ({
  agentId: "deploybot/prod",
  verb: "ask",
  mode: "select",
  tags: [],
  labels: {},
  priority: "normal",
  ...f,
});

describe("rule matching", () => {
  it("agent globs: * within a segment, ** across, ? one character, everything else literal", () => {
    expect(agentGlob("deploybot/*").test("deploybot/prod")).toBe(true);
    expect(agentGlob("deploybot/*").test("deploybot/prod/eu")).toBe(false);
    expect(agentGlob("deploybot/**").test("deploybot/prod/eu")).toBe(true);
    expect(agentGlob("bot-?").test("bot-1")).toBe(true);
    expect(agentGlob("a.b").test("axb")).toBe(false);
    expect(agentGlob("(x)+").test("(x)+")).toBe(true);
  });

  it("every condition must hold; priority is at least; a mode matches no task", () => {
    expect(ruleMatches(rule({}), facts())).toBe(true);
    expect(ruleMatches(rule({ match: { project: "web" } }), facts())).toBe(false);
    expect(ruleMatches(rule({ match: { project: "web" } }), facts({ project: "web" }))).toBe(true);
    expect(ruleMatches(rule({ match: { tags_any: ["a", "b"] } }), facts({ tags: ["b"] }))).toBe(true);
    expect(ruleMatches(rule({ match: { tags_all: ["a", "b"] } }), facts({ tags: ["b"] }))).toBe(false);
    expect(ruleMatches(rule({ match: { labels: { env: "prod" } } }), facts({ labels: { env: "prod", x: "y" } }))).toBe(
      true,
    );
    expect(ruleMatches(rule({ match: { labels: { env: "prod" } } }), facts({ labels: { env: "dev" } }))).toBe(false);
    expect(ruleMatches(rule({ match: { priority: "high" } }), facts({ priority: "urgent" }))).toBe(true);
    expect(ruleMatches(rule({ match: { priority: "high" } }), facts({ priority: "normal" }))).toBe(false);
    expect(ruleMatches(rule({ match: { verb: "task" } }), facts())).toBe(false);
    expect(ruleMatches(rule({ match: { mode: ["confirm"] } }), facts({ mode: "confirm" }))).toBe(true);
    expect(ruleMatches(rule({ match: { mode: "select" } }), facts({ verb: "task", mode: undefined }))).toBe(false);
  });

  it("refuses unknown keys, bad refs and duplicate names", () => {
    expect(() => rule({ match: { tagz: ["x"] } })).toThrow();
    expect(() => rule({ assign: ["alice"] })).toThrow();
    expect(() => rule({ assign: [] })).toThrow();
    expect(() => RulesSchema.parse([rule({}), rule({})])).toThrow(/a second rule named r/);
  });
});

describe("the strictest combination", () => {
  const directory: Directory = {
    members: [
      { handle: "alice", role: "member" },
      { handle: "bob", role: "admin" },
      { handle: "carol", role: "owner" },
      { handle: "vic", role: "viewer" },
    ],
    groups: new Map([["sre", ["alice", "bob", "vic"]]]),
  };

  it("no rule matching is the default: nothing recorded", () => {
    const e = evaluatePolicy([rule({ match: { verb: "task" } })], facts(), directory);
    expect(e.routing).toBeNull();
    expect(e.excluded).toEqual([{ handle: "vic", reasons: ["the viewer role may read but not answer"] }]);
  });

  it("intersects every matching rule's people, keeps allowed_resolvers' narrowing, and explains every exclusion", () => {
    const rules = [
      rule({ name: "sre", assign: ["group:sre"] }),
      rule({ name: "pair", assign: ["human:alice", "human:carol"], email_answers: false }),
      rule({ name: "other", match: { project: "x" }, assign: ["human:carol"] }),
    ];
    const e = evaluatePolicy(rules, facts(), directory);
    expect(e.matched.map((r) => r.name)).toEqual(["sre", "pair"]);
    expect(e.routing).toEqual({ rules: ["sre", "pair"], eligible: ["alice"], email_answers: false });
    expect(e.excluded).toEqual([
      { handle: "bob", reasons: ["not assigned by rule pair"] },
      { handle: "carol", reasons: ["not assigned by rule sre"] },
      { handle: "vic", reasons: ["the viewer role may read but not answer", "not assigned by rule pair"] },
    ]);
    const narrowed = evaluatePolicy(
      rules,
      facts({ allowedResolvers: ["human:carol", "agent:deploybot/prod"] }),
      directory,
    );
    expect(narrowed.routing?.eligible).toEqual([]);
    expect(narrowed.excluded.find((x) => x.handle === "alice")?.reasons).toEqual([
      "not in the ask's allowed_resolvers",
    ]);
  });

  it("an unknown group stands for nobody", () => {
    const e = evaluatePolicy([rule({ assign: ["group:ghosts"] })], facts(), directory);
    expect(e.routing?.eligible).toEqual([]);
  });
});

describe("quorum keys", () => {
  const rules = (list: Array<Record<string, unknown>>) =>
    RulesSchema.safeParse(list.map((r, i) => ({ name: `r${i}`, assign: ["human:alice"], ...r })));
  const messages = (r: ReturnType<typeof rules>) => (r.success ? [] : r.error.issues.map((i) => i.message));

  it("approvals > 1 and require_from only on rules matching confirm and select asks alone; veto on confirm alone", () => {
    expect(messages(rules([{ approvals: 2 }]))).toEqual([
      expect.stringMatching(/^rule r0 asks for 2 approvals, which only confirm and select asks can give/),
    ]);
    expect(messages(rules([{ approvals: 2, match: { verb: "ask", mode: ["select", "input"] } }]))).toHaveLength(1);
    expect(messages(rules([{ require_from: "sre", match: { verb: "task" } }]))).toEqual([
      expect.stringMatching(/^rule r0 asks for an approval from group sre/),
    ]);
    expect(messages(rules([{ approvals: 2, require_from: "sre", match: { mode: ["confirm", "select"] } }]))).toEqual(
      [],
    );
    expect(messages(rules([{ veto: true, match: { mode: ["confirm", "select"] } }]))).toEqual([
      expect.stringMatching(/^rule r0 has veto, which only a confirm ask's deny can cast/),
    ]);
    expect(messages(rules([{ veto: true, approvals: 3, match: { mode: "confirm" } }]))).toEqual([]);
    // Excluding sponsors is about who answers, not counting: any rule may.
    expect(messages(rules([{ exclude_sponsors: true }]))).toEqual([]);
    expect(messages(rules([{ approvals: 0, match: { mode: "confirm" } }]))).toHaveLength(1);
  });

  it("the strictest combination: the most approvals, every require_from group, sponsors out, a veto", () => {
    const parsed = RulesSchema.parse([
      { name: "a", assign: ["group:sre", "human:carol", "human:sam"], approvals: 2, match: { mode: "confirm" } },
      {
        name: "b",
        assign: ["group:sre", "human:carol", "human:sam"],
        approvals: 3,
        require_from: "sre",
        match: { mode: "confirm" },
      },
      { name: "c", assign: ["group:sre", "human:carol", "human:sam"], require_from: "dba", match: { mode: "confirm" } },
      {
        name: "d",
        assign: ["group:sre", "human:carol", "human:sam"],
        exclude_sponsors: true,
        veto: true,
        match: { mode: "confirm" },
      },
    ]);
    const dir: Directory = {
      members: ["alice", "bob", "carol", "sam"].map((handle) => ({ handle, role: "member" as const })),
      groups: new Map([
        ["sre", ["alice", "bob"]],
        ["dba", ["carol"]],
      ]),
      sponsors: ["sam"],
    };
    const e = evaluatePolicy(parsed, facts({ mode: "confirm" }), dir);
    expect(e.routing?.eligible).toEqual(["alice", "bob", "carol"]);
    expect(e.excluded).toEqual([{ handle: "sam", reasons: ["sponsor of this agent (rule d)"] }]);
    expect(e.routing?.quorum).toEqual({
      approvals: 3,
      approvals_rule: "b",
      require_from: [
        { group: "sre", rule: "b", members: ["alice", "bob"] },
        { group: "dba", rule: "c", members: ["carol"] },
      ],
      exclude_sponsors: { rule: "d", sponsors: ["sam"] },
      veto: { rule: "d" },
    });
    expect(e.refusal).toBeNull();
    // Fewer eligible than M, or nobody eligible in a group: the submit's 422, naming the rule.
    const short = evaluatePolicy(
      parsed,
      facts({ mode: "confirm", allowedResolvers: ["human:alice", "human:carol"] }),
      dir,
    );
    expect(short.refusal).toBe("the account's approval policy: b needs 3 approvers; 2 are eligible");
    const noDba = evaluatePolicy(parsed, facts({ mode: "confirm" }), {
      ...dir,
      groups: new Map([
        ["sre", ["alice", "bob"]],
        ["dba", ["sam"]],
      ]),
    });
    expect(noDba.refusal).toBe("the account's approval policy: c needs an approver from dba; none of dba is eligible");
    // No quorum key among the matching rules: nothing recorded beyond today's routing.
    const plain = evaluatePolicy(RulesSchema.parse([{ name: "p", assign: ["human:alice"] }]), facts(), dir);
    expect(plain.routing).toEqual({ rules: ["p"], eligible: ["alice"], email_answers: true });
  });
});

describe('escalation keys (docs/policies.md "Escalation")', () => {
  it("durations: ISO-8601 days to seconds, or a whole number with s, m, h or d; never zero or over 30 days", () => {
    expect(durationMs("PT30M")).toBe(1_800_000);
    expect(durationMs("P1DT2H")).toBe(93_600_000);
    expect(durationMs("PT1H30M15S")).toBe(5_415_000);
    expect(durationMs("30m")).toBe(1_800_000);
    expect(durationMs("2h")).toBe(7_200_000);
    expect(durationMs("90s")).toBe(90_000);
    expect(durationMs("1d")).toBe(86_400_000);
    for (const bad of ["", "P", "PT", "P1M", "P1Y", "30", "30 m", "1.5h", "0m", "PT0S", "31d", "-5m", "30min"])
      expect(durationMs(bad), bad).toBeNull();
  });

  it("both keys or neither; a bad duration or target is refused, naming the rule", () => {
    const parsed = (r: Record<string, unknown>) =>
      RulesSchema.safeParse([{ name: "pay", assign: ["human:alice"], ...r }]);
    expect(parsed({ escalate_after: "30m", escalate_to: "group:oncall" }).success).toBe(true);
    const half = parsed({ escalate_after: "30m" });
    expect(half.success ? [] : half.error.issues.map((i) => i.message)).toEqual([
      "rule pay needs both escalate_after and escalate_to, or neither",
    ]);
    expect(parsed({ escalate_after: "soon", escalate_to: "group:oncall" }).success).toBe(false);
    expect(parsed({ escalate_after: "30m", escalate_to: "oncall" }).success).toBe(false);
  });

  it("the earliest escalate_after of the matching rules wins; recorded on the routing", () => {
    const rules = [
      rule({ name: "slow", escalate_after: "2h", escalate_to: "group:leads" }),
      rule({ name: "fast", escalate_after: "PT45M", escalate_to: "human:carol" }),
      rule({ name: "tie", escalate_after: "45m", escalate_to: "human:dan" }),
      rule({ name: "none" }),
    ];
    expect(escalationOf(rules)).toEqual({ rule: "fast", after: "PT45M", after_ms: 2_700_000, to: "human:carol" });
    expect(escalationOf([rules[3] as (typeof rules)[number]])).toBeNull();
    const directory: Directory = { members: [{ handle: "alice", role: "member" }], groups: new Map() };
    expect(evaluatePolicy(rules, facts(), directory).routing?.escalation?.rule).toBe("fast");
  });
});

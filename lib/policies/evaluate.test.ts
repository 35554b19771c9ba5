// covers: lib/policies/evaluate.ts, lib/policies/model.ts
import { describe, expect, it } from "vitest";
import { type AskFacts, type Directory, evaluatePolicy, ruleMatches } from "./evaluate";
import { agentGlob, RuleSchema, RulesSchema } from "./model";

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

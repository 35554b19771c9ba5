/**
 * The tester and the live routing agree (docs/policies.md): for ~200 generated asks and tasks — agent
 * ids among a few (globs with `*`, `**` and `?` in the rules), projects, tags, labels, priorities,
 * verbs, modes and `allowed_resolvers` — under a fixed policy of several overlapping rules and groups,
 * what the tester answers (`evaluateForAccount` on `factsOf`, the function the admin page and
 * `ma2h-hub policy test` use) is exactly what the real in-process submit recorded on the message, or
 * the submit's `422 invalid_field` naming the rules when it leaves nobody eligible (nothing stored).
 */
// covers: lib/policies/evaluate.ts, lib/policies/routing.ts, lib/messages/submit.ts
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { parseMessage } from "@ma2h/protocol/message";
import { db } from "../lib/db";
import { submitMessage } from "../lib/messages/submit";
import { factsOf } from "../lib/policies/evaluate";
import { PolicyFileSchema, PRIORITIES } from "../lib/policies/model";
import { evaluateForAccount, routingOf } from "../lib/policies/routing";
import { applyPolicy } from "../lib/policies/store";
import { authenticate, requireAgent } from "../lib/principals/authenticate";
import type { AgentPrincipal } from "../lib/principals/types";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";

const AGENTS = ["deploybot/prod", "deploybot/staging", "deploybot/prod/eu", "lintbot", "ci/runner"] as const;
const fx = useHubFixture({
  server: "none",
  accounts: {
    acme: {
      agents: [...AGENTS],
      humans: [
        { handle: "olga", role: "owner" },
        { handle: "adam", role: "admin" },
        { handle: "alice", role: "member" },
        { handle: "bob", role: "member" },
        { handle: "carol", role: "member" },
        { handle: "dan", role: "member" },
        { handle: "vic", role: "viewer" },
      ],
    },
  },
});

/** Overlapping rules on every selector, groups that share people, a viewer assigned, globs of each kind. */
const POLICY = PolicyFileSchema.parse({
  version: 1,
  groups: {
    sre: ["human:alice", "human:bob"],
    web: ["human:bob", "human:carol", "human:dan"],
    leads: ["human:olga", "human:adam", "human:carol"],
  },
  rules: [
    {
      name: "prod-deploys",
      match: { agent: "deploybot/*", verb: "ask", mode: ["confirm", "select"] },
      assign: ["group:sre", "human:carol"],
      email_answers: false,
    },
    { name: "prod-tag", match: { tags_any: ["prod"] }, assign: ["group:sre", "human:olga"] },
    { name: "web-project", match: { project: "web" }, assign: ["group:web"] },
    {
      name: "urgent",
      match: { priority: "urgent" },
      assign: ["group:leads", "human:alice", "human:bob"],
      email_answers: false,
    },
    {
      name: "payments-review",
      match: { labels: { team: "payments" }, tags_all: ["money", "review"] },
      assign: ["human:dan", "human:alice", "human:vic"],
    },
    { name: "deploy-tasks", match: { agent: "deploybot/**", verb: "task" }, assign: ["group:leads", "human:bob"] },
    { name: "ci", match: { agent: "ci/?unner", priority: "high" }, assign: ["human:bob", "human:dan"] },
  ],
});

const HUMANS = ["human:olga", "human:adam", "human:alice", "human:bob", "human:carol", "human:dan", "human:vic"];
const INPUT = { type: "object", properties: { reason: { type: "string" } }, required: ["reason"] };

const askArb = fc.record({
  agent: fc.constantFrom(...AGENTS),
  verb: fc.constantFrom("ask" as const, "task" as const),
  mode: fc.constantFrom("select", "input", "confirm"),
  project: fc.option(fc.constantFrom("web", "api"), { nil: undefined }),
  tags: fc.subarray(["prod", "money", "review", "misc"]),
  labels: fc.option(fc.constantFrom({ team: "payments" }, { team: "web" }, { team: "payments", env: "prod" }), {
    nil: undefined,
  }),
  priority: fc.option(fc.constantFrom(...PRIORITIES), { nil: undefined }),
  resolvers: fc.option(fc.subarray([...HUMANS, "agent:lintbot"], { minLength: 1 }), { nil: undefined }),
});
type Ask = typeof askArb extends fc.Arbitrary<infer T> ? T : never;

function bodyOf(a: Ask): Record<string, unknown> {
  const resolvers = a.resolvers === undefined ? {} : { allowed_resolvers: a.resolvers };
  const request =
    a.mode === "select"
      ? {
          mode: "select",
          options: [
            { value: "ship", label: "Ship" },
            { value: "hold", label: "Hold" },
          ],
        }
      : a.mode === "input"
        ? { mode: "input", schema: INPUT }
        : { mode: "confirm" };
  const body = envelope(a.verb, a.agent, {
    ...(a.tags.length ? { tags: a.tags } : {}),
    ...(a.priority ? { priority: a.priority } : {}),
    ...(a.verb === "ask"
      ? { request: { ...request, ...resolvers } }
      : { action: { instructions: "Rotate the key", ...resolvers } }),
  });
  const agent = body.agent as Record<string, unknown>;
  if (a.project) agent.project = a.project;
  if (a.labels) agent.labels = a.labels;
  return body;
}

const principals = new Map<string, AgentPrincipal>();
let accountId = "";

beforeAll(async () => {
  accountId = (await db().account.findUniqueOrThrow({ where: { slug: "acme" }, select: { id: true } })).id;
  for (const id of AGENTS)
    principals.set(
      id,
      requireAgent(await authenticate(new Headers({ authorization: `Bearer ${fx.account("acme").keys[id]}` }))),
    );
  await applyPolicy(accountId, POLICY, { actor: "human:olga", role: "owner" });
});

describe("the tester and the live routing", () => {
  it("agree on 200 generated asks and tasks: the recorded routing, or the 422 with nothing stored", async () => {
    const seen = { defaults: 0, routed: 0, severalRules: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(askArb, async (a) => {
        const body = bodyOf(a);
        const facts = factsOf(parseMessage(body), a.agent);
        if (facts === null) throw new Error("a human-inbox ask or task always has facts");
        const tester = await evaluateForAccount(accountId, facts);
        const before = await db().message.count();
        const live = await submitMessage(principals.get(a.agent) as AgentPrincipal, body).then(
          (r) => ({ ok: true as const, id: r.ack.id }),
          (err: { code?: string; message?: string }) => ({ ok: false as const, code: err.code, text: err.message }),
        );
        if (tester.routing !== null && tester.routing.eligible.length === 0) {
          seen.refused++;
          expect(live).toMatchObject({ ok: false, code: "invalid_field" });
          for (const rule of tester.routing.rules) expect(live.ok ? "" : live.text).toContain(rule);
          expect(await db().message.count()).toBe(before);
          return;
        }
        if (!live.ok) throw new Error(`the submit was refused (${live.code}: ${live.text}) for ${JSON.stringify(a)}`);
        const row = await db().message.findUniqueOrThrow({ where: { id: live.id }, select: { routing: true } });
        expect(routingOf(row)).toEqual(tester.routing);
        if (tester.routing === null) seen.defaults++;
        else {
          seen.routed++;
          if (tester.routing.rules.length > 1) seen.severalRules++;
        }
      }),
      { numRuns: 200 },
    );
    // The generator reaches every outcome, so the agreement is not vacuous.
    for (const [outcome, n] of Object.entries(seen)) expect(n, outcome).toBeGreaterThan(5);
  }, 60_000);
});

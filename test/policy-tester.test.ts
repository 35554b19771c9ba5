/**
 * The admin page's policy tester (lib/policies/tester.ts) on real PostgreSQL: the default policy's
 * eligible people and exclusions; a pasted envelope that is not JSON, not a valid message, a notify
 * or addressed is refused with a clear error; a matching rule's routing is what the submit records
 * (the tester and the live submit agree); a draft's rules are tested without being applied; a stored
 * ask shows the routing recorded at its submit, which a later apply does not change; another
 * account's ask is "not found"; the recent list holds only the account's human-inbox asks and tasks.
 */
// covers: lib/policies/tester.ts
import { describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { submitMessage } from "../lib/messages/submit";
import { PolicyFileSchema, RulesSchema } from "../lib/policies/model";
import { routingOf } from "../lib/policies/routing";
import { applyPolicy } from "../lib/policies/store";
import { recentAsks, testPolicy } from "../lib/policies/tester";
import { authenticate, requireAgent } from "../lib/principals/authenticate";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";

const DEPLOY = "deploybot/prod";
const LINT = "lintbot";
const fx = useHubFixture({
  server: "none",
  accounts: {
    acme: {
      agents: [DEPLOY, LINT],
      humans: [
        { handle: "olga", role: "owner" },
        { handle: "adam", role: "admin" },
        { handle: "alice", role: "member" },
        { handle: "bob", role: "member" },
        { handle: "vic", role: "viewer" },
      ],
    },
    globex: { agents: ["globex-bot"], humans: [{ handle: "gina", role: "owner" }] },
  },
});
const OWNER = { actor: "human:olga", role: "owner" } as const;

async function accountId(slug: string): Promise<string> {
  return (await db().account.findUniqueOrThrow({ where: { slug }, select: { id: true } })).id;
}
async function submit(slug: string, agentId: string, body: Record<string, unknown>): Promise<string> {
  const key = fx.account(slug).keys[agentId];
  const principal = requireAgent(await authenticate(new Headers({ authorization: `Bearer ${key}` })));
  return (await submitMessage(principal, body)).ack.id;
}
async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return `${(err as { code?: string }).code}: ${(err as Error).message}`;
  }
  throw new Error("expected a refusal");
}
const json = (body: Record<string, unknown>) => ({ kind: "json" as const, text: JSON.stringify(body) });

describe("the policy tester", () => {
  it("under the default policy: every answering member, the viewer and those outside allowed_resolvers left out", async () => {
    const acme = await accountId("acme");
    const t = await testPolicy(acme, json(envelope("ask", DEPLOY)));
    expect(t).toMatchObject({ matched: [], routing: null, eligible: ["adam", "alice", "bob", "olga"] });
    expect(t.excluded).toEqual([{ handle: "vic", reasons: ["the viewer role may read but not answer"] }]);
    expect(t.recorded).toBeUndefined();
    expect(t.ask).toEqual({ type: "ask", title: expect.any(String), agentId: DEPLOY });
    expect(t.agentKnown).toBe(true);
    expect((await testPolicy(acme, json(envelope("ask", "ghost-bot")))).agentKnown).toBe(false);

    const listed = await testPolicy(
      acme,
      json(envelope("ask", DEPLOY, { request: { mode: "confirm", allowed_resolvers: ["human:bob"] } })),
    );
    expect(listed.eligible).toEqual(["bob"]);
    expect(listed.excluded.map((x) => x.handle)).toEqual(["adam", "alice", "olga", "vic"]);
    expect(listed.excluded[0]?.reasons).toEqual(["not in the ask's allowed_resolvers"]);
  });

  it("refuses a pasted message that is not JSON, not a valid envelope, a notify or addressed; changes nothing", async () => {
    const acme = await accountId("acme");
    const before = await db().message.count();
    expect(await refusal(testPolicy(acme, { kind: "json", text: "{ nope" }))).toMatch(
      /^validation_error: the pasted message is not JSON: /,
    );
    const bad = envelope("ask", DEPLOY);
    delete bad.title;
    expect(await refusal(testPolicy(acme, json(bad)))).toMatch(/^validation_error: .*title/);
    expect(await refusal(testPolicy(acme, json(envelope("notify", DEPLOY))))).toBe(
      "invalid_field: a notify asks nobody: approval policies govern asks and tasks",
    );
    expect(
      await refusal(testPolicy(acme, json(envelope("ask", DEPLOY, { ma2h_version: "0.6", to: `agent:${LINT}` })))),
    ).toBe(
      `invalid_field: this ask is addressed to agent:${LINT}: approval policies govern the human inbox's asks and tasks only`,
    );
    expect(await db().message.count()).toBe(before);
  });

  it("a matching rule: what the submit records, with every exclusion's reason; a draft is tested unapplied", async () => {
    const acme = await accountId("acme");
    await applyPolicy(
      acme,
      PolicyFileSchema.parse({
        version: 1,
        groups: { sre: ["human:alice", "human:bob"] },
        rules: [
          { name: "prod-deploys", match: { agent: "deploybot/*" }, assign: ["group:sre"], email_answers: false },
          { name: "urgent", match: { priority: "urgent" }, assign: ["human:bob", "human:olga"] },
        ],
      }),
      OWNER,
    );
    const body = envelope("ask", DEPLOY, { priority: "urgent" });
    const t = await testPolicy(acme, json(body));
    expect(t.matched.map((r) => r.name)).toEqual(["prod-deploys", "urgent"]);
    expect(t.routing).toEqual({ rules: ["prod-deploys", "urgent"], eligible: ["bob"], email_answers: false });
    expect(t.eligible).toEqual(["bob"]);
    expect(t.excluded).toEqual([
      { handle: "adam", reasons: ["not assigned by rule prod-deploys", "not assigned by rule urgent"] },
      { handle: "alice", reasons: ["not assigned by rule urgent"] },
      { handle: "olga", reasons: ["not assigned by rule prod-deploys"] },
      {
        handle: "vic",
        reasons: [
          "the viewer role may read but not answer",
          "not assigned by rule prod-deploys",
          "not assigned by rule urgent",
        ],
      },
    ]);
    // The live submit records the same routing.
    const id = await submit("acme", DEPLOY, body);
    expect(routingOf(await db().message.findUniqueOrThrow({ where: { id }, select: { routing: true } }))).toEqual(
      t.routing,
    );

    // A draft's rules, not applied: the applied policy is untouched.
    const draft = RulesSchema.parse([{ name: "lint", match: { agent: "lintbot" }, assign: ["human:adam"] }]);
    expect((await testPolicy(acme, json(envelope("task", LINT)), draft)).routing).toEqual({
      rules: ["lint"],
      eligible: ["adam"],
      email_answers: true,
    });
    expect((await testPolicy(acme, json(envelope("task", LINT)))).routing).toBeNull();
  });

  it("a stored ask: evaluated for its attested agent, with the routing recorded at its submit kept after an apply", async () => {
    const acme = await accountId("acme");
    const id = await submit("acme", DEPLOY, envelope("ask", DEPLOY, { title: "Deploy 42?" }));
    const first = await testPolicy(acme, { kind: "stored", id });
    expect(first.ask).toMatchObject({ id, type: "ask", title: "Deploy 42?", agentId: DEPLOY });
    expect(first.agentKnown).toBe(true);
    expect(first.recorded).toEqual({ rules: ["prod-deploys"], eligible: ["alice", "bob"], email_answers: false });
    expect(first.routing).toEqual(first.recorded);

    await applyPolicy(acme, PolicyFileSchema.parse({ version: 1, rules: [] }), OWNER);
    const later = await testPolicy(acme, { kind: "stored", id });
    expect(later.routing).toBeNull();
    expect(later.eligible).toEqual(["adam", "alice", "bob", "olga"]);
    expect(later.recorded).toEqual(first.recorded);

    // Another account's ask, a notify and an unknown id: not found, alike.
    const globexAsk = await submit("globex", "globex-bot", envelope("ask", "globex-bot"));
    const notify = await submit("acme", LINT, envelope("notify", LINT));
    for (const other of [globexAsk, notify, "msg_nope"])
      expect(await refusal(testPolicy(acme, { kind: "stored", id: other }))).toBe(
        "not_found: no such ask or task in this account",
      );
  });

  it("offers the account's latest asks and tasks only, newest first", async () => {
    const acme = await accountId("acme");
    const task = await submit("acme", LINT, envelope("task", LINT, { title: "Rotate keys" }));
    const recent = await recentAsks(acme, 3);
    expect(recent).toHaveLength(3);
    expect(recent[0]).toMatchObject({ id: task, type: "task", title: "Rotate keys", agentId: LINT });
    const all = await recentAsks(acme);
    expect(all.every((r) => r.type === "ask" || r.type === "task")).toBe(true);
    expect(all.map((r) => r.createdAt.getTime())).toEqual(
      [...all.map((r) => r.createdAt.getTime())].sort((a, b) => b - a),
    );
    expect(all.find((r) => r.agentId === "globex-bot")).toBeUndefined();
    expect(all.map((r) => r.title)).toContain("Deploy 42?");
  });
});

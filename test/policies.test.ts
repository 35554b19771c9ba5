/**
 * Approval policies (docs/policies.md) on real PostgreSQL, through the real submit, resolve, inbox
 * and notification paths: the default policy is today's behaviour; a matching rule records its
 * routing at submit and only the people it leaves eligible may answer (never an agent); the selectors
 * an agent asserts only tighten a rule on its attested id; an ask no one may answer is refused 422
 * and nothing is stored; later edits do not change open asks; the notifications' audience is the
 * eligible people; applies are owners' and the operator's, checked whole, audited with their diff,
 * and an export applied back is no change.
 */
// covers: lib/policies/store.ts, lib/policies/routing.ts, lib/messages/access.ts
import { describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { createGroup, deleteGroup } from "../lib/groups/groups";
import { answerAsHuman } from "../lib/inbox/answer";
import { itemForHuman } from "../lib/inbox/item";
import { resolveMessage } from "../lib/messages/resolve";
import { submitMessage } from "../lib/messages/submit";
import { audienceOf } from "../lib/notifications/recipients";
import { envelopeOf } from "../lib/messages/record";
import { PolicyFileSchema, type PolicyFile } from "../lib/policies/model";
import { routingOf } from "../lib/policies/routing";
import { applyPolicy, exportPolicy, readPolicy } from "../lib/policies/store";
import { authenticate, requireAgent } from "../lib/principals/authenticate";
import type { AgentPrincipal } from "../lib/principals/types";
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
        { handle: "carol", role: "member" },
        { handle: "vic", role: "viewer" },
      ],
    },
  },
});
const acme = fx.account("acme");
const OWNER = { actor: "human:olga", role: "owner" } as const;

async function accountId(): Promise<string> {
  return (await db().account.findUniqueOrThrow({ where: { slug: "acme" }, select: { id: true } })).id;
}
async function agent(id: string): Promise<AgentPrincipal> {
  return requireAgent(await authenticate(new Headers({ authorization: `Bearer ${acme.keys[id]}` })));
}
async function userId(handle: string): Promise<string> {
  return (await db().user.findUniqueOrThrow({ where: { email: `${handle}@acme.test` }, select: { id: true } })).id;
}
async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return `${(err as { code?: string }).code}: ${(err as Error).message}`;
  }
  throw new Error("expected a refusal");
}
async function audience(id: string): Promise<string[]> {
  const row = await db().message.findUniqueOrThrow({ where: { id } });
  return (await audienceOf(row.accountId, envelopeOf(row), routingOf(row))).map((r) => r.handle);
}
async function routingOfId(id: string) {
  return routingOf(await db().message.findUniqueOrThrow({ where: { id }, select: { routing: true } }));
}

const POLICY: PolicyFile = PolicyFileSchema.parse({
  version: 1,
  groups: { sre: ["human:alice", "human:bob"] },
  rules: [
    {
      name: "prod-deploys",
      match: { agent: "deploybot/*", verb: "ask", mode: ["confirm", "select"] },
      assign: ["group:sre", "human:carol"],
      email_answers: false,
    },
    { name: "prod-tag", match: { tags_any: ["prod"] }, assign: ["group:sre"] },
  ],
});

describe("approval policies", () => {
  it("the default policy (none applied) is today's: no routing, every answering member, the agent itself", async () => {
    const a = await agent(DEPLOY);
    const { ack } = await submitMessage(a, envelope("ask", DEPLOY));
    expect(await routingOfId(ack.id)).toBeNull();
    expect(await audience(ack.id)).toEqual(["adam", "alice", "bob", "carol", "olga"]);
    expect(
      await resolveMessage({ kind: "agent", principal: a }, ack.id, {
        resolution: "answered",
        value: "ship",
      }),
    ).toMatchObject({ status: "answered" });
  });

  it("applies are owners' and the operator's, checked whole against the account's people and groups", async () => {
    const acct = await accountId();
    expect(await refusal(applyPolicy(acct, POLICY, { actor: "human:adam", role: "admin" }))).toMatch(/^not_authorized/);
    const bad = PolicyFileSchema.parse({
      version: 1,
      rules: [{ name: "r", assign: ["human:nobody", "group:ghosts"] }],
    });
    const err = await applyPolicy(acct, bad, OWNER).catch((e) => e);
    expect(err.code).toBe("invalid_field");
    expect(err.extra.problems).toEqual([
      { path: ["rules", 0, "assign", 0], message: "human:nobody is not a member of this account" },
      {
        path: ["rules", 0, "assign", 1],
        message: "group:ghosts is not a group of this account (nor one this file lists)",
      },
    ]);
    expect((await readPolicy(acct)).revision).toBe(0);
    const dry = await applyPolicy(acct, POLICY, OWNER, { dryRun: true });
    expect(dry).toMatchObject({
      changed: true,
      revision: 0,
      diff: { rules: { added: ["prod-deploys", "prod-tag"] }, groups: { created: ["sre"] } },
    });
    expect(await db().accountGroup.count({ where: { accountId: acct } })).toBe(0);
    const applied = await applyPolicy(acct, POLICY, OWNER);
    expect(applied).toMatchObject({ changed: true, revision: 1 });
    const audit = await db().auditEvent.findMany({
      where: { accountId: acct, event: { in: ["policy.applied", "group.created", "group.member_added"] } },
      orderBy: { id: "asc" },
    });
    expect(audit.map((r) => r.event)).toEqual([
      "group.created",
      "group.member_added",
      "group.member_added",
      "policy.applied",
    ]);
    expect(audit.at(-1)).toMatchObject({
      actor: "human:olga",
      detail: { revision: 1, rules: { added: ["prod-deploys", "prod-tag"] } },
    });
    // An export applied back is no change: no new revision, no audit row.
    const exported = await exportPolicy(acct);
    expect(exported.groups).toEqual({ sre: ["human:alice", "human:bob"] });
    expect(await applyPolicy(acct, PolicyFileSchema.parse(JSON.parse(JSON.stringify(exported))), OWNER)).toMatchObject({
      changed: false,
      revision: 1,
    });
  });

  it("a matching rule records its routing; only its eligible people answer, never an agent", async () => {
    const a = await agent(DEPLOY);
    const { ack } = await submitMessage(a, envelope("ask", DEPLOY, { request: { mode: "confirm" } }));
    expect(await routingOfId(ack.id)).toEqual({
      rules: ["prod-deploys"],
      eligible: ["alice", "bob", "carol"],
      email_answers: false,
    });
    expect(await audience(ack.id)).toEqual(["alice", "bob", "carol"]);
    expect(
      await refusal(
        resolveMessage({ kind: "agent", principal: a }, ack.id, {
          resolution: "answered",
          value: "approve",
        }),
      ),
    ).toMatch(/^not_authorized/);
    // The owner is not asked: refused, and the inbox shows them no answer controls.
    expect(
      await refusal(
        resolveMessage({ kind: "human", userId: await userId("olga") }, ack.id, {
          resolution: "answered",
          value: "approve",
        }),
      ),
    ).toMatch(/^not_authorized: the account's approval policy \(prod-deploys\) does not ask you/);
    expect((await itemForHuman(await userId("olga"), ack.id))?.routing).toEqual({
      rules: ["prod-deploys"],
      asked: ["human:alice", "human:bob", "human:carol"],
    });
    expect((await itemForHuman(await userId("olga"), ack.id))?.can).toMatchObject({
      answer: false,
      refusal: expect.stringMatching(/approval policy/),
    });
    expect(await answerAsHuman(await userId("carol"), ack.id, { kind: "answer", value: "approve" })).toMatchObject({
      ok: true,
    });
  });

  it("the selectors an agent asserts only tighten: leaving out a tag does not escape a rule on its id", async () => {
    const a = await agent(DEPLOY);
    const withTag = await submitMessage(a, envelope("ask", DEPLOY, { tags: ["prod"] }));
    expect(await routingOfId(withTag.ack.id)).toMatchObject({
      rules: ["prod-deploys", "prod-tag"],
      eligible: ["alice", "bob"],
    });
    const withoutTag = await submitMessage(a, envelope("ask", DEPLOY));
    expect(await routingOfId(withoutTag.ack.id)).toMatchObject({
      rules: ["prod-deploys"],
      eligible: ["alice", "bob", "carol"],
    });
    // A task from the deploy bot matches no rule on asks (nor the tag rule without the tag).
    const task = await submitMessage(a, envelope("task", DEPLOY));
    expect(await routingOfId(task.ack.id)).toBeNull();
    // Another agent tagging its ask prod is routed by the tag rule.
    const lint = await submitMessage(await agent(LINT), envelope("ask", LINT, { tags: ["prod"] }));
    expect(await routingOfId(lint.ack.id)).toMatchObject({ rules: ["prod-tag"], eligible: ["alice", "bob"] });
  });

  it("a policy narrows allowed_resolvers, never widens it; nobody eligible is 422 with nothing stored", async () => {
    const a = await agent(DEPLOY);
    const narrowed = await submitMessage(
      a,
      envelope("ask", DEPLOY, {
        request: { mode: "confirm", allowed_resolvers: ["human:bob", "human:olga", `agent:${DEPLOY}`] },
      }),
    );
    expect(await routingOfId(narrowed.ack.id)).toMatchObject({ eligible: ["bob"] });
    const before = await db().message.count();
    const none = envelope("ask", DEPLOY, { request: { mode: "confirm", allowed_resolvers: ["human:olga"] } });
    expect(await refusal(submitMessage(a, none))).toMatch(
      /^invalid_field: no one may answer this ask under the account's approval policy \(rule prod-deploys\)/,
    );
    expect(await db().message.count()).toBe(before);
    expect(await db().idempotencyRecord.count({ where: { idempotencyKey: none.idempotency_key as string } })).toBe(0);
  });

  it("later edits to the policy and its groups do not change open asks; new asks follow them", async () => {
    const acct = await accountId();
    const a = await agent(DEPLOY);
    const open = await submitMessage(a, envelope("ask", DEPLOY, { request: { mode: "confirm" } }));
    await applyPolicy(
      acct,
      PolicyFileSchema.parse({
        version: 1,
        groups: { sre: ["human:alice"] },
        rules: [{ name: "prod-deploys", match: { agent: "deploybot/*" }, assign: ["human:carol"] }],
      }),
      OWNER,
    );
    expect(await routingOfId(open.ack.id)).toMatchObject({ eligible: ["alice", "bob", "carol"] });
    expect(await answerAsHuman(await userId("bob"), open.ack.id, { kind: "answer", value: "approve" })).toMatchObject({
      ok: true,
    });
    const next = await submitMessage(a, envelope("ask", DEPLOY));
    expect(await routingOfId(next.ack.id)).toEqual({
      rules: ["prod-deploys"],
      eligible: ["carol"],
      email_answers: true,
    });
    const audit = await db().auditEvent.findFirstOrThrow({
      where: { accountId: acct, event: "policy.applied" },
      orderBy: { id: "desc" },
    });
    expect(audit.detail).toMatchObject({
      revision: 2,
      rules: { added: [], removed: ["prod-tag"], changed: ["prod-deploys"] },
      groups: { removed: [{ group: "sre", person: "human:bob" }] },
    });
    // A group the policy assigns cannot be deleted; one it does not can.
    await applyPolicy(
      acct,
      PolicyFileSchema.parse({
        version: 1,
        rules: [{ name: "sre-only", assign: ["group:sre"], match: { project: "x" } }],
      }),
      OWNER,
    );
    expect(await refusal(deleteGroup(acct, "sre", OWNER))).toMatch(
      /^invalid_field: group sre is assigned, required or escalated to by the approval policy \(rule sre-only\)/,
    );
    await createGroup(acct, "empty", undefined, OWNER);
    await deleteGroup(acct, "empty", OWNER);
  });
});

/**
 * Quorum approvals (docs/policies.md "Quorum") over the real `/v1` API, served in-process on real
 * PostgreSQL: every row of the resolve table (202 until the approval that completes, the same
 * approval again, another value replacing it, 403 naming the rule and reason, 409 once settled),
 * veto, decline, withdrawal, eligibility lost mid-vote (a new sponsor, a viewer, a group member
 * removed), `require_from` unmet after M approvals from outside the group, expiry with partial
 * approvals, the save-time refusals, the 422 at submit with nothing stored, and the audit trail.
 */
// covers: lib/messages/approvals.ts, lib/approvals/, lib/policies/evaluate.ts, lib/policies/routing.ts, lib/http/routes/resolve.ts
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { readApprovals } from "../lib/approvals/state";
import { approvalsLine } from "../lib/approvals/tally";
import { withdrawVote } from "../lib/messages/approvals";
import { fixedClock, setClock } from "../lib/clock";
import { db } from "../lib/db";
import { removeGroupMembers } from "../lib/groups/groups";
import { answerAsHuman } from "../lib/inbox/answer";
import { itemForHuman } from "../lib/inbox/item";
import { PolicyFileSchema } from "../lib/policies/model";
import { applyPolicy, exportPolicy } from "../lib/policies/store";
import { testPolicy } from "../lib/policies/tester";
import { parsePolicyYaml, policyToYaml } from "../lib/policies/yaml";
import { changeRole } from "../lib/principals/members";
import { changeSponsors } from "../lib/principals/sponsors";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";

const DEPLOY = "deploybot/prod";
const RELEASE = "releasebot";
const PEOPLE = ["alice", "bob", "carol", "dan", "erin", "sam"];
const fx = useHubFixture({
  server: "in-process",
  accounts: {
    acme: {
      agents: [DEPLOY, RELEASE],
      humans: [{ handle: "olga", role: "owner" }, ...PEOPLE.map((handle) => ({ handle, role: "member" as const }))],
    },
  },
});
const OWNER = { actor: "human:olga", role: "owner" } as const;

/** prod deploys: 2 approvals, one from sre, never the agent's sponsor, one deny ends it; releases: 2 of 4. */
const POLICY = {
  version: 1,
  groups: { sre: ["human:alice", "human:bob"] },
  rules: [
    {
      name: "prod-deploys",
      match: { agent: "deploybot/*", mode: "confirm" },
      assign: ["group:sre", "human:carol", "human:dan", "human:erin", "human:sam"],
      approvals: 2,
      require_from: "sre",
      exclude_sponsors: true,
      veto: true,
    },
    {
      name: "release-pick",
      match: { agent: RELEASE, mode: "select" },
      assign: ["human:carol", "human:dan", "human:erin", "human:alice"],
      approvals: 2,
    },
  ],
};

let accountId = "";
const membership = async (handle: string) =>
  (await db().membership.findFirstOrThrow({ where: { accountId, handle }, select: { id: true } })).id;
const userId = async (handle: string) =>
  (await db().user.findUniqueOrThrow({ where: { email: `${handle}@acme.test` }, select: { id: true } })).id;

beforeAll(async () => {
  accountId = (await db().account.findUniqueOrThrow({ where: { slug: "acme" }, select: { id: true } })).id;
  await applyPolicy(accountId, PolicyFileSchema.parse(POLICY), OWNER);
  const agent = await db().agent.findFirstOrThrow({ where: { accountId, agentId: DEPLOY }, select: { id: true } });
  await changeSponsors(accountId, agent.id, { set: ["human:sam"] }, OWNER);
});
afterEach(() => setClock(null));

const vote = (handle: string, id: string, body: Record<string, unknown>) =>
  fx.human(handle, "acme").post(`/v1/messages/${id}/resolve`, body);
const approve = (handle: string, id: string, value = "approve", comment?: string) =>
  vote(handle, id, { resolution: "answered", value, ...(comment ? { comment } : {}) });

async function ask(agent: string, over: Record<string, unknown> = {}): Promise<string> {
  const request =
    agent === DEPLOY
      ? { mode: "confirm" }
      : {
          mode: "select",
          options: [
            { value: "a", label: "A" },
            { value: "b", label: "B" },
          ],
        };
  const body = envelope("ask", agent, { ...over, request: { ...request, ...((over.request as object) ?? {}) } });
  const res = await fx.agent(agent, "acme").post("/v1/messages", body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.id as string;
}
const agentView = async (agent: string, id: string) => (await fx.agent(agent, "acme").get(`/v1/messages/${id}`)).body;
/** The §6 detail of the Response the agent reads: value, actor, comment. */
const answerOf = async (agent: string, id: string) => (await agentView(agent, id)).response?.response;
const events = async (id: string) =>
  (await db().auditEvent.findMany({ where: { messageId: id }, orderBy: { id: "asc" } })).map((e) => ({
    event: e.event,
    actor: e.actor,
    detail: e.detail,
  }));
const pending = (id: string, have: number, need = 2) => ({ id, status: "open", approvals: { have, need } });

describe("the resolve table over /v1", () => {
  it("202 until the approval that completes (200, its person the actor, only their comment); 403 sponsor; 409 after", async () => {
    const id = await ask(DEPLOY);
    const routing = JSON.parse(
      (await db().message.findUniqueOrThrow({ where: { id }, select: { routing: true } })).routing as string,
    );
    expect(routing).toMatchObject({
      eligible: ["alice", "bob", "carol", "dan", "erin"],
      quorum: {
        approvals: 2,
        approvals_rule: "prod-deploys",
        require_from: [{ group: "sre", rule: "prod-deploys", members: ["alice", "bob"] }],
        exclude_sponsors: { rule: "prod-deploys", sponsors: ["sam"] },
        veto: { rule: "prod-deploys" },
      },
    });
    const first = await approve("carol", id, "approve", "looks fine");
    expect(first).toMatchObject({ status: 202, body: pending(id, 1) });
    // The same approval again: the same 202, nothing new recorded.
    const before = await events(id);
    expect(await approve("carol", id, "approve", "again")).toMatchObject({ status: 202, body: pending(id, 1) });
    expect(await events(id)).toEqual(before);
    // The agent sees nothing new: open until the Response.
    expect(await agentView(DEPLOY, id)).toMatchObject({ status: "open" });
    expect((await agentView(DEPLOY, id)).response).toBeUndefined();
    // The sponsor, a person the rules do not ask, and the agent itself: 403, naming the rule and reason.
    const sponsor = await approve("sam", id);
    expect(sponsor.status).toBe(403);
    expect(sponsor.body.error).toMatchObject({
      code: "not_authorized",
      message: "the account's approval policy (rule prod-deploys) does not ask you: sponsor of this agent",
    });
    expect((await approve("olga", id)).body.error.message).toMatch(/approval policy \(prod-deploys\) does not ask you/);
    expect(
      (await fx.agent(DEPLOY, "acme").post(`/v1/messages/${id}/resolve`, { resolution: "answered", value: "approve" }))
        .status,
    ).toBe(403);
    // The display state, in the one line every channel shows.
    const state = await readApprovals(id);
    expect(state).toMatchObject({ need: 2, have: { approve: 1 }, votes: [{ handle: "carol", value: "approve" }] });
    expect(approvalsLine(state as NonNullable<typeof state>)).toBe("1 of 2 approvals — carol: approve");

    const done = await approve("alice", id, "approve", "ship it");
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ id, status: "answered", resolution_id: expect.stringMatching(/^res_/) });
    expect(await answerOf(DEPLOY, id)).toMatchObject({ value: "approve", actor: "human:alice", comment: "ship it" });
    expect(await approve("bob", id)).toMatchObject({ status: 409, body: { error: { code: "already_terminal" } } });
    const trail = (await events(id)).filter((e) => !e.event.startsWith("response."));
    expect(trail.map((e) => `${e.event} ${e.actor}`)).toEqual([
      `message.submitted agent:${DEPLOY}`,
      "approval.recorded human:carol",
      "approval.recorded human:alice",
      "message.answered human:alice",
    ]);
  });

  it("another value replaces the vote, audited; a withdrawn vote no longer counts", async () => {
    const id = await ask(RELEASE);
    expect(await approve("carol", id, "a")).toMatchObject({ status: 202, body: pending(id, 1) });
    expect(await approve("carol", id, "b")).toMatchObject({ status: 202, body: pending(id, 1) });
    expect(await approve("dan", id, "a")).toMatchObject({ status: 202, body: pending(id, 1) });
    expect(await withdrawVote(await userId("dan"), id)).toEqual(pending(id, 0));
    // Withdrawing again changes nothing.
    expect(await withdrawVote(await userId("dan"), id)).toEqual(pending(id, 0));
    expect(await approve("erin", id, "a")).toMatchObject({ status: 202, body: pending(id, 1) });
    const done = await approve("alice", id, "b");
    expect(done).toMatchObject({ status: 200, body: { status: "answered" } });
    expect(await answerOf(RELEASE, id)).toMatchObject({ value: "b", actor: "human:alice" });
    expect((await events(id)).filter((e) => e.event.startsWith("approval."))).toEqual([
      { event: "approval.recorded", actor: "human:carol", detail: { answer: "a", channel: "api" } },
      { event: "approval.replaced", actor: "human:carol", detail: { answer: "b", replaced: "a", channel: "api" } },
      { event: "approval.recorded", actor: "human:dan", detail: { answer: "a", channel: "api" } },
      { event: "approval.withdrawn", actor: "human:dan", detail: { answer: "a" } },
      { event: "approval.recorded", actor: "human:erin", detail: { answer: "a", channel: "api" } },
      { event: "approval.recorded", actor: "human:alice", detail: { answer: "b", channel: "api" } },
    ]);
    await expect(withdrawVote(await userId("erin"), id)).rejects.toMatchObject({ code: "already_terminal" });
  });

  it("veto: one eligible deny ends a confirm ask with that person as the actor; a decline ends it declined", async () => {
    const vetoed = await ask(DEPLOY);
    expect((await approve("carol", vetoed)).status).toBe(202);
    expect(await approve("dan", vetoed, "deny", "not on a Friday")).toMatchObject({
      status: 200,
      body: { status: "answered" },
    });
    expect(await answerOf(DEPLOY, vetoed)).toMatchObject({
      value: "deny",
      actor: "human:dan",
      comment: "not on a Friday",
    });
    const declined = await ask(RELEASE);
    expect((await approve("carol", declined, "a")).status).toBe(202);
    expect(await vote("erin", declined, { resolution: "declined" })).toMatchObject({
      status: 200,
      body: { status: "declined" },
    });
    expect(await agentView(RELEASE, declined)).toMatchObject({ status: "declined" });
    expect(await answerOf(RELEASE, declined)).toMatchObject({ actor: "human:erin" });
  });

  it("require_from: M approvals from outside the group leave it open; a further outsider is refused; one from sre completes", async () => {
    const id = await ask(DEPLOY);
    expect(await approve("carol", id)).toMatchObject({ status: 202, body: pending(id, 1) });
    expect(await approve("dan", id)).toMatchObject({ status: 202, body: pending(id, 2) });
    expect(await agentView(DEPLOY, id)).toMatchObject({ status: "open" });
    const outsider = await approve("erin", id);
    expect(outsider).toMatchObject({ status: 403, body: { error: { code: "not_authorized" } } });
    expect(outsider.body.error.message).toMatch(/rule prod-deploys.*not in group sre$/);
    expect(await approve("bob", id)).toMatchObject({ status: 200, body: { status: "answered" } });
    expect(await answerOf(DEPLOY, id)).toMatchObject({ actor: "human:bob" });
  });

  it("a free-form answer is not offered under a quorum (422), and the inbox offers none", async () => {
    const id = await ask(RELEASE, { ma2h_version: "0.6", request: { permissions: { allow_edit: true } } });
    expect(await approve("carol", id, "something else")).toMatchObject({
      status: 422,
      body: { error: { code: "invalid_field" } },
    });
    expect((await itemForHuman(await userId("carol"), id))?.ask?.freeForm).toBe(false);
  });
});

describe("eligibility lost mid-vote", () => {
  it("a voter who became a sponsor, or a viewer, no longer counts; one removed from sre no longer covers it", async () => {
    const agent = await db().agent.findFirstOrThrow({ where: { accountId, agentId: DEPLOY }, select: { id: true } });
    const id = await ask(DEPLOY);
    expect((await approve("carol", id)).status).toBe(202);
    await changeSponsors(accountId, agent.id, { add: ["human:carol"] }, OWNER);
    // carol's approval no longer counts: alice's is the only one.
    expect(await approve("alice", id)).toMatchObject({ status: 202, body: pending(id, 1) });
    expect((await approve("carol", id, "deny")).body.error.message).toMatch(/sponsor of this agent/);
    expect(approvalsLine((await readApprovals(id)) as NonNullable<Awaited<ReturnType<typeof readApprovals>>>)).toBe(
      "1 of 2 approvals — carol: approve (not counted); alice: approve",
    );
    await changeSponsors(accountId, agent.id, { remove: ["human:carol"] }, OWNER);

    const release = await ask(RELEASE);
    expect((await approve("dan", release, "a")).status).toBe(202);
    await changeRole(accountId, await membership("dan"), "viewer", OWNER);
    expect(await approve("erin", release, "a")).toMatchObject({ status: 202, body: pending(release, 1) });
    await changeRole(accountId, await membership("dan"), "member", OWNER);
    // Back as a member, dan counts again: eligibility is read at each count.
    expect(await approve("carol", release, "a")).toMatchObject({ status: 200 });

    const grouped = await ask(DEPLOY);
    expect((await approve("alice", grouped)).status).toBe(202);
    await removeGroupMembers(accountId, "sre", ["human:alice"], OWNER);
    // alice still counts toward M but no longer covers sre.
    expect(await approve("dan", grouped)).toMatchObject({ status: 202, body: pending(grouped, 2) });
    expect(await approve("bob", grouped)).toMatchObject({ status: 200 });
  });
});

describe("expiry and the inbox", () => {
  it("an ask expiring with partial approvals takes its default_on_expire; a vote after it is 409", async () => {
    const id = await ask(RELEASE, {
      expires_at: new Date(Date.now() + 60_000).toISOString(),
      request: { default_on_expire: "a" },
    });
    expect(await approve("carol", id, "b")).toMatchObject({ status: 202 });
    setClock(fixedClock(new Date(Date.now() + 120_000)));
    const late = await approve("dan", id, "b");
    expect(late).toMatchObject({ status: 409, body: { error: { code: "already_terminal" } } });
    expect(await agentView(RELEASE, id)).toMatchObject({ status: "expired" });
    expect(await answerOf(RELEASE, id)).toMatchObject({ value: "a", actor: "system:default_on_expire" });
    expect(await db().approvalVote.count({ where: { messageId: id } })).toBe(1);
  });

  it("the inbox's answer is the same vote: it says open with the count", async () => {
    const id = await ask(RELEASE);
    expect(await answerAsHuman(await userId("carol"), id, { kind: "answer", value: "a" })).toEqual({
      ok: true,
      status: "open",
      approvals: { have: 1, need: 2 },
    });
    expect(await answerAsHuman(await userId("erin"), id, { kind: "answer", value: "a" })).toEqual({
      ok: true,
      status: "answered",
    });
  });
});

describe("refused before anything is stored", () => {
  it("at save: a quorum on a rule that could match an input ask or a task, a veto beyond confirm, an unknown group", async () => {
    const parsed = parsePolicyYaml(
      "version: 1\nrules:\n  - name: two-of-anything\n    assign: [human:carol]\n    approvals: 2\n",
    );
    expect(parsed).toMatchObject({
      ok: false,
      problems: [{ line: 3, message: expect.stringMatching(/^rule two-of-anything asks for 2 approvals/) }],
    });
    const veto = PolicyFileSchema.safeParse({
      version: 1,
      rules: [{ name: "v", assign: ["human:carol"], veto: true, match: { mode: ["confirm", "select"] } }],
    });
    expect(veto.success).toBe(false);
    const ghost = PolicyFileSchema.parse({
      version: 1,
      rules: [{ name: "g", assign: ["human:carol"], require_from: "ghosts", match: { mode: "select" } }],
    });
    await expect(applyPolicy(accountId, ghost, OWNER)).rejects.toMatchObject({
      code: "invalid_field",
      extra: {
        problems: [{ path: ["rules", 0, "require_from"], message: expect.stringMatching(/^ghosts is not a group/) }],
      },
    });
  });

  it("at submit: fewer than M eligible, or none in a require_from group, is 422 naming the rule; nothing stored", async () => {
    const before = await db().message.count();
    const one = envelope("ask", DEPLOY, { request: { mode: "confirm", allowed_resolvers: ["human:carol"] } });
    const short = await fx.agent(DEPLOY, "acme").post("/v1/messages", one);
    expect(short).toMatchObject({ status: 422, body: { error: { code: "invalid_field" } } });
    expect(short.body.error.message).toMatch(
      /^the account's approval policy: prod-deploys needs 2 approvers; 1 is eligible/,
    );
    const noSre = envelope("ask", DEPLOY, {
      request: { mode: "confirm", allowed_resolvers: ["human:carol", "human:dan"] },
    });
    const none = await fx.agent(DEPLOY, "acme").post("/v1/messages", noSre);
    expect(none.status).toBe(422);
    expect(none.body.error.message).toMatch(/prod-deploys needs an approver from sre; none of sre is eligible/);
    expect(await db().message.count()).toBe(before);
    expect(await db().idempotencyRecord.count({ where: { idempotencyKey: one.idempotency_key as string } })).toBe(0);
    // The tester is the submit's evaluation: the quorum, the sponsor left out, the same refusal.
    const tested = await testPolicy(accountId, { kind: "json", text: JSON.stringify(one) });
    expect(tested.routing?.quorum).toMatchObject({ approvals: 2, exclude_sponsors: { sponsors: ["sam"] } });
    expect(tested.refusal).toBe(short.body.error.message.replace(/; check allowed_resolvers.*$/, ""));
    const open = await testPolicy(accountId, {
      kind: "json",
      text: JSON.stringify(envelope("ask", DEPLOY, { request: { mode: "confirm" } })),
    });
    expect(open.refusal).toBeNull();
    expect(open.excluded).toContainEqual({ handle: "sam", reasons: ["sponsor of this agent (rule prod-deploys)"] });
  });

  it("the policy file carries the quorum keys: exported, written as YAML and read back unchanged", async () => {
    const exported = await exportPolicy(accountId);
    expect(exported.rules[0]).toMatchObject({ approvals: 2, require_from: "sre", exclude_sponsors: true, veto: true });
    const back = parsePolicyYaml(policyToYaml(exported, "acme"));
    expect(back).toMatchObject({ ok: true });
    if (back.ok) expect(await applyPolicy(accountId, back.file, OWNER)).toMatchObject({ changed: false });
  });
});

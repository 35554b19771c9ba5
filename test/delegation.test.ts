/**
 * Delegation while away, reassignment and escalation by policy (docs/policies.md "Delegation",
 * "Reassignment", "Escalation") over the real `/v1` API served in-process on real PostgreSQL, with
 * the injected clock: delegation window edges (starting and ending mid-ask); a delegate completing a
 * quorum (the Response's actor is the delegate, "for bob" in the audit and on the item); delegate and
 * delegator both approving counting once; a delegate excluded by separation of duties; a delegate an
 * explicit `allowed_resolvers` does not name being told only; reassignment limits (who may, to whom,
 * under `allowed_resolvers`); escalation timing, the earliest rule winning, nothing after an answer,
 * and a notification-only escalation refused `403 not_authorized`; the `ma2h-hub user delegate` CLI.
 */
// covers: lib/delegation/store.ts, lib/assignment/, lib/messages/access.ts, lib/approvals/eligibility.ts, lib/inbox/handovers.ts, cli/delegation-commands.ts
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { escalateDue } from "../lib/assignment/escalate";
import { reassignChoices, reassignMessage } from "../lib/assignment/reassign";
import { fixedClock, setClock } from "../lib/clock";
import { db } from "../lib/db";
import { clearDelegation, listDelegations, setDelegation } from "../lib/delegation/store";
import { itemForHuman } from "../lib/inbox/item";
import { envelopeOf } from "../lib/messages/record";
import { answerRefusal, resolvingHumans } from "../lib/notifications/recipients";
import { fanOut } from "../lib/notifications/fanout";
import { PolicyFileSchema } from "../lib/policies/model";
import { routingOf } from "../lib/policies/routing";
import { applyPolicy } from "../lib/policies/store";
import { changeSponsors } from "../lib/principals/sponsors";
import { seatFor } from "../lib/principals/seats";
import { cliInProcess } from "./support/cli-in-process";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";

const DEPLOY = "deploybot/prod";
const REVIEW = "reviewbot";
const PAY = "paybot";
const PEOPLE = ["alice", "bob", "carol", "dan", "erin", "sam", "fay"];
const fx = useHubFixture({
  server: "in-process",
  accounts: {
    acme: {
      agents: [DEPLOY, REVIEW, PAY],
      humans: [
        { handle: "olga", role: "owner" },
        ...PEOPLE.map((handle) => ({ handle, role: "member" as const })),
        { handle: "vic", role: "viewer" },
      ],
    },
  },
});
const OWNER = { actor: "human:olga", role: "owner" } as const;

const POLICY = {
  version: 1,
  groups: { sre: ["human:alice", "human:bob"], oncall: ["human:erin", "human:dan"], finance: ["human:fay"] },
  rules: [
    {
      name: "prod-deploys",
      match: { agent: "deploybot/*", mode: "confirm" },
      assign: ["group:sre", "human:dan"],
      approvals: 2,
      require_from: "sre",
      exclude_sponsors: true,
    },
    { name: "reviews", match: { agent: REVIEW }, assign: ["human:bob"] },
    {
      name: "payments",
      match: { agent: PAY },
      assign: ["human:alice"],
      escalate_after: "30m",
      escalate_to: "group:oncall",
    },
    {
      name: "urgent-payments",
      match: { agent: PAY, tags_any: ["urgent"] },
      assign: ["human:alice"],
      escalate_after: "PT10M",
      escalate_to: "human:carol",
    },
  ],
};

let accountId = "";
const userId = async (handle: string) =>
  (await db().user.findUniqueOrThrow({ where: { email: `${handle}@acme.test` }, select: { id: true } })).id;
const T0 = new Date("2026-12-07T09:00:00.000Z");
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
const clock = fixedClock(T0);

beforeAll(async () => {
  accountId = (await db().account.findUniqueOrThrow({ where: { slug: "acme" }, select: { id: true } })).id;
  await applyPolicy(accountId, PolicyFileSchema.parse(POLICY), OWNER);
  const agent = await db().agent.findFirstOrThrow({ where: { accountId, agentId: DEPLOY }, select: { id: true } });
  await changeSponsors(accountId, agent.id, { set: ["human:sam"] }, OWNER);
});
afterEach(async () => {
  setClock(null);
  await db().delegation.deleteMany({});
});

const resolve = (handle: string, id: string, body: Record<string, unknown>) =>
  fx.human(handle, "acme").post(`/v1/messages/${id}/resolve`, body);
const approve = (handle: string, id: string) => resolve(handle, id, { resolution: "answered", value: "approve" });

async function ask(agent: string, over: Record<string, unknown> = {}): Promise<string> {
  const request = agent === DEPLOY ? { mode: "confirm" } : undefined;
  const body = envelope("ask", agent, { ...over, ...(request ? { request } : {}) });
  const res = await fx.agent(agent, "acme").post("/v1/messages", body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.id as string;
}
const answerOf = async (agent: string, id: string) =>
  (await fx.agent(agent, "acme").get(`/v1/messages/${id}`)).body.response?.response;
const routing = async (id: string) =>
  routingOf(await db().message.findUniqueOrThrow({ where: { id }, select: { routing: true } }));
const audit = async (id: string, event: string) =>
  (await db().auditEvent.findMany({ where: { messageId: id, event }, orderBy: { id: "asc" } })).map((e) => ({
    actor: e.actor,
    detail: e.detail,
  }));
const delegate = (delegator: string, to: string, from: Date, until: Date) =>
  setDelegation({ accountId, delegator, delegate: to, startsAt: from, endsAt: until, actor: `human:${delegator}` });

describe("delegation", () => {
  it("the window's edges: before it starts and after it ends the delegate may not answer; inside, for bob", async () => {
    setClock(clock);
    clock.set(T0);
    await delegate("bob", "carol", at(10), at(20));
    const id = await ask(REVIEW);
    const early = await resolve("carol", id, { resolution: "answered", value: "ship" });
    expect(early).toMatchObject({ status: 403, body: { error: { code: "not_authorized" } } });
    // The window starts mid-ask: carol is offered the answer and gives it, as herself, for bob.
    clock.set(at(15));
    const item = await itemForHuman(await userId("carol"), id);
    expect(item?.can.refusal).toBeNull();
    const done = await resolve("carol", id, { resolution: "answered", value: "ship" });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(await answerOf(REVIEW, id)).toMatchObject({ actor: "human:carol", value: "ship" });
    expect(await audit(id, "message.answered")).toEqual([
      { actor: "human:carol", detail: expect.objectContaining({ for: "bob" }) },
    ]);
    expect((await itemForHuman(await userId("bob"), id))?.history.answeredFor).toBe("bob");
    // The window ends mid-ask: a second ask asked at 15 is out of carol's reach at 20.
    const later = await ask(REVIEW);
    clock.set(at(20));
    const late = await resolve("carol", later, { resolution: "answered", value: "ship" });
    expect(late).toMatchObject({ status: 403, body: { error: { code: "not_authorized" } } });
    expect((await itemForHuman(await userId("carol"), later))?.can.refusal).toMatch(/does not ask you/);
  });

  it("a delegate's approval completes a quorum: the Response's actor is the delegate, 'for bob' in the audit", async () => {
    setClock(clock);
    clock.set(T0);
    await delegate("bob", "carol", at(-1), at(60));
    const id = await ask(DEPLOY);
    // carol is not in sre: alice's approval covers it; carol's, for bob, is the second.
    expect((await approve("alice", id)).status).toBe(202);
    const done = await approve("carol", id);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(await answerOf(DEPLOY, id)).toMatchObject({ actor: "human:carol", value: "approve" });
    expect(await audit(id, "approval.recorded")).toEqual([
      { actor: "human:alice", detail: { answer: "approve", channel: "api" } },
      { actor: "human:carol", detail: { answer: "approve", channel: "api", for: "bob" } },
    ]);
    expect(await audit(id, "message.answered")).toEqual([
      { actor: "human:carol", detail: expect.objectContaining({ for: "bob" }) },
    ]);
  });

  it("delegate and delegator both approving count once; a sponsor delegate stays excluded", async () => {
    setClock(clock);
    clock.set(T0);
    await delegate("bob", "carol", at(-1), at(60));
    const id = await ask(DEPLOY);
    expect(await approve("bob", id)).toMatchObject({ status: 202, body: { approvals: { have: 1, need: 2 } } });
    // carol for bob: bob's place is taken already — still one.
    expect(await approve("carol", id)).toMatchObject({ status: 202, body: { approvals: { have: 1, need: 2 } } });
    const line = (await itemForHuman(await userId("olga"), id))?.approvals;
    expect(line?.votes.map((v) => [v.handle, v.forHandle ?? null])).toEqual([
      ["bob", null],
      ["carol", "bob"],
    ]);
    // sam sponsors the agent: as alice's delegate he is still kept out.
    await delegate("alice", "sam", at(-1), at(60));
    const sam = await approve("sam", id);
    expect(sam).toMatchObject({
      status: 403,
      body: { error: { code: "not_authorized", message: expect.stringMatching(/sponsor/) } },
    });
    // dan makes two distinct people.
    expect((await approve("dan", id)).status).toBe(200);
    expect(await answerOf(DEPLOY, id)).toMatchObject({ actor: "human:dan" });
  });

  it("with an explicit allowed_resolvers, a delegate it does not name is told and may not answer", async () => {
    setClock(clock);
    clock.set(T0);
    await delegate("bob", "carol", at(-1), at(60));
    const id = await ask(REVIEW, { request: { mode: "confirm", allowed_resolvers: ["human:bob"] } });
    const row = await db().message.findUniqueOrThrow({ where: { id } });
    const told = (await resolvingHumans(accountId, envelopeOf(row), routingOf(row))).map((r) => r.handle);
    expect(told).toEqual(["bob", "carol"]);
    const seat = await seatFor(await userId("carol"), accountId);
    expect(await answerRefusal(seat, row, envelopeOf(row), routingOf(row))).toMatch(/allowed_resolvers/);
    expect(await approve("carol", id)).toMatchObject({ status: 403, body: { error: { code: "not_authorized" } } });
    // Without the window nobody tells carol.
    await clearDelegation(accountId, "bob", "human:bob");
    expect((await resolvingHumans(accountId, envelopeOf(row), routingOf(row))).map((r) => r.handle)).toEqual(["bob"]);
  });

  it("refuses a delegation to oneself, to a viewer, an ended or empty window; audits set and clear", async () => {
    const now = new Date();
    const refused = (p: Promise<unknown>, message: RegExp) =>
      expect(p).rejects.toMatchObject({ code: "invalid_field", message: expect.stringMatching(message) });
    await refused(delegate("bob", "bob", now, new Date(now.getTime() + 3_600_000)), /themselves/);
    await refused(delegate("bob", "vic", now, new Date(now.getTime() + 3_600_000)), /viewer role/);
    await refused(
      delegate("bob", "carol", new Date(now.getTime() - 7_200_000), new Date(now.getTime() - 3_600_000)),
      /ended/,
    );
    await refused(delegate("bob", "carol", now, now), /end after it starts/);
    await refused(delegate("bob", "carol", now, new Date(now.getTime() + 91 * 86_400_000)), /at most 90 days/);
    expect(await listDelegations(accountId)).toEqual([]);
    const since = (await db().auditEvent.findFirst({ orderBy: { id: "desc" }, select: { id: true } }))?.id ?? 0n;
    await delegate("bob", "carol", now, new Date(now.getTime() + 3_600_000));
    await delegate("bob", "dan", now, new Date(now.getTime() + 3_600_000)); // replaces
    expect((await listDelegations(accountId)).map((d) => [d.delegator, d.delegate, d.active])).toEqual([
      ["bob", "dan", true],
    ]);
    expect(await clearDelegation(accountId, "bob", "human:bob")).toBe(true);
    expect(await clearDelegation(accountId, "bob", "human:bob")).toBe(false);
    const events = await db().auditEvent.findMany({
      where: { accountId, id: { gt: since }, event: { in: ["delegation.set", "delegation.cleared"] } },
      orderBy: { id: "asc" },
      select: { event: true, actor: true, detail: true },
    });
    expect(events.map((e) => [e.event, e.actor, (e.detail as { delegate?: string }).delegate ?? null])).toEqual([
      ["delegation.set", "human:bob", "human:carol"],
      ["delegation.set", "human:bob", "human:dan"],
      ["delegation.cleared", "human:bob", null],
    ]);
  });

  it("ma2h-hub user delegate / delegations: set, list, clear, refusals", async () => {
    const until = new Date(Date.now() + 86_400_000).toISOString();
    const set = await cliInProcess([
      "user",
      "delegate",
      "bob",
      "--account",
      "acme",
      "--to",
      "carol",
      "--until",
      until,
      "--json",
    ]);
    expect(set.code, set.stderr).toBe(0);
    expect(set.json).toEqual({
      delegation: {
        delegator: "human:bob",
        delegate: "human:carol",
        starts_at: expect.any(String),
        ends_at: until,
        active: true,
      },
    });
    const list = await cliInProcess(["user", "delegations", "--account", "acme", "--json"]);
    expect(list.json).toMatchObject({ delegations: [{ delegator: "human:bob", delegate: "human:carol" }] });
    const bad = await cliInProcess([
      "user",
      "delegate",
      "bob",
      "--account",
      "acme",
      "--to",
      "carol",
      "--until",
      "tomorrow",
      "--json",
    ]);
    expect(bad.code).toBe(2);
    const viewer = await cliInProcess([
      "user",
      "delegate",
      "bob",
      "--account",
      "acme",
      "--to",
      "vic",
      "--until",
      until,
      "--json",
    ]);
    expect(viewer.json).toMatchObject({ error: { code: "invalid_field" } });
    const cleared = await cliInProcess(["user", "delegate", "bob", "--account", "acme", "--clear", "--json"]);
    expect(cleared.json).toEqual({ delegation: null, cleared: true });
    const rows = await db().auditEvent.findMany({
      where: { accountId, event: "delegation.cleared" },
      orderBy: { id: "asc" },
      select: { actor: true },
    });
    expect(rows.at(-1)?.actor).toBe("system:cli");
  });
});

describe("reassignment", () => {
  it("an asked person hands an item to a group: its members may answer, it is audited and shown", async () => {
    const id = await ask(REVIEW);
    // dan is not asked: he may not hand it on (nor see choices).
    await expect(reassignMessage(await userId("dan"), id, "group:finance")).rejects.toMatchObject({
      code: "not_authorized",
    });
    expect(await reassignChoices(await userId("dan"), id)).toBeNull();
    const choices = await reassignChoices(await userId("bob"), id);
    expect(choices?.people).toEqual(["alice", "carol", "dan", "erin", "fay", "olga", "sam"]);
    expect(choices?.groups).toEqual(["finance", "oncall", "sre"]);
    expect(await resolve("fay", id, { resolution: "answered", value: "ship" })).toMatchObject({ status: 403 });
    const a = await reassignMessage(await userId("bob"), id, "group:finance", "payments own this");
    expect(a).toMatchObject({ to: "group:finance", handles: ["fay"], told: [], via: "reassign", by: "human:bob" });
    expect((await routing(id))?.eligible).toEqual(["bob", "fay"]);
    expect(await audit(id, "message.reassigned")).toEqual([
      {
        actor: "human:bob",
        detail: { to: "group:finance", answering: ["human:fay"], told: [], note: "payments own this" },
      },
    ]);
    const item = await itemForHuman(await userId("fay"), id);
    expect(item?.history.handovers).toMatchObject([{ via: "reassign", to: "group:finance", by: "human:bob" }]);
    expect(item?.can.refusal).toBeNull();
    expect((await resolve("fay", id, { resolution: "answered", value: "ship" })).status).toBe(200);
    await expect(reassignMessage(await userId("bob"), id, "human:dan")).rejects.toMatchObject({
      code: "already_terminal",
    });
  });

  it("an owner hands on; only people allowed_resolvers and the policy allow; never a viewer or a sponsor", async () => {
    const id = await ask(REVIEW, { request: { mode: "confirm", allowed_resolvers: ["human:bob", "human:erin"] } });
    const olga = await userId("olga");
    // olga is not asked but owns the account: she may hand it on, to erin only.
    expect(await reassignChoices(olga, id)).toEqual({ people: ["erin"], groups: ["oncall"] });
    await expect(reassignMessage(olga, id, "human:dan")).rejects.toMatchObject({
      code: "invalid_field",
      message: expect.stringMatching(
        /human:dan may not answer this item: you are not in the message's allowed_resolvers/,
      ),
    });
    await expect(reassignMessage(olga, id, "human:vic")).rejects.toMatchObject({ code: "invalid_field" });
    await expect(reassignMessage(olga, id, "human:nobody")).rejects.toMatchObject({ code: "not_found" });
    await expect(reassignMessage(olga, id, "erin")).rejects.toMatchObject({ code: "invalid_field" });
    expect(await reassignMessage(olga, id, "group:oncall")).toMatchObject({ handles: ["erin"], told: [] });
    expect((await approve("erin", id)).status).toBe(200);
    // A quorum that excludes sponsors: sam is never offered, nor taken.
    const deploy = await ask(DEPLOY);
    expect((await reassignChoices(olga, deploy))?.people).not.toContain("sam");
    await expect(reassignMessage(olga, deploy, "human:sam")).rejects.toMatchObject({
      code: "invalid_field",
      message: expect.stringMatching(/sponsor/),
    });
  });
});

describe("escalation by policy", () => {
  it("nobody answered in time: the group is assigned and told at exactly escalate_after", async () => {
    setClock(clock);
    clock.set(T0);
    const id = await ask(PAY);
    expect((await routing(id))?.escalation).toEqual({
      rule: "payments",
      after: "30m",
      after_ms: 1_800_000,
      to: "group:oncall",
    });
    await fanOut(id);
    expect(await db().policyEscalation.findUnique({ where: { messageId: id } })).toMatchObject({ dueAt: at(30) });
    expect(await resolve("erin", id, { resolution: "answered", value: "ship" })).toMatchObject({ status: 403 });
    clock.set(at(29.99));
    expect(await escalateDue()).toBe(0);
    clock.set(at(30));
    expect(await escalateDue()).toBe(1);
    expect(await escalateDue()).toBe(0); // once
    expect((await routing(id))?.eligible).toEqual(["alice", "dan", "erin"]);
    expect(await audit(id, "message.escalated")).toEqual([
      {
        actor: "system:policy",
        detail: {
          to: "group:oncall",
          answering: ["human:dan", "human:erin"],
          told: [],
          rule: "payments",
          after: "30m",
        },
      },
    ]);
    const item = await itemForHuman(await userId("erin"), id);
    expect(item?.history.handovers).toMatchObject([{ via: "escalation", to: "group:oncall" }]);
    expect((await resolve("erin", id, { resolution: "answered", value: "ship" })).status).toBe(200);
  });

  it("the earliest escalate_after of the matching rules wins; an answer before it escalates nothing", async () => {
    setClock(clock);
    clock.set(T0);
    const id = await ask(PAY, { tags: ["urgent"] });
    expect((await routing(id))?.escalation).toMatchObject({
      rule: "urgent-payments",
      after_ms: 600_000,
      to: "human:carol",
    });
    const answered = await ask(PAY);
    await fanOut(id);
    await fanOut(answered);
    expect((await resolve("alice", answered, { resolution: "answered", value: "ship" })).status).toBe(200);
    clock.set(at(31));
    expect(await escalateDue()).toBe(1);
    expect(await db().policyEscalation.count({ where: { messageId: { in: [id, answered] } } })).toBe(0);
    expect(await audit(answered, "message.escalated")).toEqual([]);
    expect((await routing(id))?.assigned).toMatchObject([{ to: "human:carol", handles: ["carol"], via: "escalation" }]);
  });

  it("outside an explicit allowed_resolvers, an escalation tells only: 403 not_authorized to answer", async () => {
    setClock(clock);
    clock.set(T0);
    const id = await ask(PAY, { request: { mode: "confirm", allowed_resolvers: ["human:alice"] } });
    await fanOut(id);
    clock.set(at(30));
    expect(await escalateDue()).toBe(1);
    expect((await routing(id))?.assigned).toMatchObject([{ handles: [], told: ["dan", "erin"] }]);
    expect((await routing(id))?.eligible).toEqual(["alice"]);
    const refused = await approve("erin", id);
    expect(refused).toMatchObject({ status: 403, body: { error: { code: "not_authorized" } } });
    expect((await approve("alice", id)).status).toBe(200);
  });
});

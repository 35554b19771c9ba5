/**
 * Similar asks answered together (docs/inbox.md "Similar asks"), in-process on real PostgreSQL:
 * one decision for N asks is N answers through the per-ask verb — N Responses, N `message.answered`
 * audit events, N push obligations; an ask settled meanwhile is reported as such and the rest
 * answered; an ask this person may not answer (its `allowed_resolvers`) is refused alone; a quorum
 * ask gets a vote and stays open; a value outside an ask's options answers none of them.
 */
// covers: lib/inbox/answer.ts, lib/inbox/similar.ts
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { answerAsHuman, answerGroup, type GroupResult } from "../lib/inbox/answer";
import { listInbox } from "../lib/inbox/list";
import { groupSimilar } from "../lib/inbox/similar";
import { PolicyFileSchema } from "../lib/policies/model";
import { applyPolicy } from "../lib/policies/store";
import { useHubFixture } from "./support/hub-fixture";
import { approveOrigin, envelope } from "./support/provision";

const BOT = "deploybot";
const QUORUM_BOT = "releasebot";
const PUSH_URL = "https://agent.example:8443/hook";
const fx = useHubFixture({
  server: "in-process",
  accounts: {
    acme: {
      agents: [BOT, QUORUM_BOT],
      humans: [
        { handle: "alice", role: "owner" },
        { handle: "bob", role: "member" },
      ],
    },
  },
  setup: () => approveOrigin(BOT, "acme", "https://agent.example:8443"),
});

const userId = async (handle: string) =>
  (await db().user.findUniqueOrThrow({ where: { email: `${handle}@acme.test` }, select: { id: true } })).id;
let alice = "";
let bob = "";

beforeAll(async () => {
  alice = await userId("alice");
  bob = await userId("bob");
  const account = await db().account.findUniqueOrThrow({ where: { slug: "acme" }, select: { id: true } });
  const policy = {
    version: 1,
    rules: [
      {
        name: "two-for-releases",
        match: { agent: QUORUM_BOT, mode: "confirm" },
        assign: ["human:alice", "human:bob"],
        approvals: 2,
      },
    ],
  };
  await applyPolicy(account.id, PolicyFileSchema.parse(policy), { actor: "human:alice", role: "owner" });
});

let build = 100;
/** A confirm ask "Deploy build #<n>" with a push callback; `request` adds to its request. */
async function ask(request: Record<string, unknown> = {}, agent = BOT): Promise<string> {
  const callback =
    agent === BOT ? { callback: { mode: "push", url: PUSH_URL, auth: { scheme: "hmac", secret_ref: "cb" } } } : {};
  const body = envelope("ask", agent, {
    title: `Deploy build #${++build}`,
    request: { mode: "confirm", ...callback, ...request },
  });
  const res = await fx.agent(agent, "acme").post("/v1/messages", body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.id as string;
}
const asks = (n: number, request: Record<string, unknown> = {}, agent = BOT) =>
  Promise.all(Array.from({ length: n }, () => ask(request, agent)));

const outcomes = (results: GroupResult[]) => results.map((r) => [r.id, r.outcome]);
const resolutionOf = (id: string) => db().resolution.findUnique({ where: { messageId: id } });
/** The value of the Response the ask's agent reads (§6). */
const answeredValue = async (id: string) => JSON.parse((await resolutionOf(id))?.response ?? "{}").value;
const answeredEvents = (id: string) => db().auditEvent.count({ where: { messageId: id, event: "message.answered" } });
const deliveries = (id: string) => db().pushDelivery.findMany({ where: { messageId: id } });
const statusOf = async (id: string) =>
  (await db().message.findUniqueOrThrow({ where: { id }, select: { status: true } })).status;

describe("answerGroup", () => {
  it("N asks, one decision: N Responses by the person, N message.answered events, N push deliveries", async () => {
    const ids = await asks(3);
    // The inbox shows them as one group of three, with the shape.
    const page = await listInbox(alice, { agent: BOT, status: "open" });
    const group = groupSimilar(page.rows).find((e) => e.kind === "group");
    expect(group).toMatchObject({ kind: "group", shape: "Deploy build #…", mode: "confirm" });
    expect(group?.kind === "group" && group.rows.map((r) => r.id).sort()).toEqual([...ids].sort());

    const report = await answerGroup(alice, ids, "deny");
    expect(outcomes(report.results)).toEqual(ids.map((id) => [id, "answered"]));
    for (const id of ids) {
      const resolution = await resolutionOf(id);
      expect(resolution).toMatchObject({ resolution: "answered", actor: "human:alice" });
      expect(await answeredValue(id)).toBe("deny");
      expect(await statusOf(id)).toBe("answered");
      expect(await answeredEvents(id)).toBe(1);
      const pushed = await deliveries(id);
      expect(pushed).toHaveLength(1);
      expect(pushed[0]?.resolutionId).toBe(resolution?.id);
      expect(pushed[0]?.callbackUrl).toBe(PUSH_URL);
    }
    expect(new Set((await Promise.all(ids.map(resolutionOf))).map((r) => r?.id)).size).toBe(3);
  });

  it("an ask someone else answered meanwhile is reported already settled, by them; the rest are answered", async () => {
    const ids = await asks(3);
    const [first, taken, last] = ids as [string, string, string];
    expect(await answerAsHuman(bob, taken, { kind: "answer", value: "deny" })).toMatchObject({ ok: true });
    const report = await answerGroup(alice, ids, "approve");
    expect(outcomes(report.results)).toEqual([
      [first, "answered"],
      [taken, "already settled"],
      [last, "answered"],
    ]);
    expect(report.results[1]).toMatchObject({ status: "answered", actor: "human:bob" });
    expect(await resolutionOf(taken)).toMatchObject({ actor: "human:bob" });
    expect(await answeredValue(taken)).toBe("deny");
    expect(await answeredEvents(taken)).toBe(1);
    expect(await deliveries(taken)).toHaveLength(1);
    expect(await resolutionOf(first)).toMatchObject({ actor: "human:alice" });
    expect(await answeredValue(first)).toBe("approve");
    expect(await resolutionOf(last)).toMatchObject({ actor: "human:alice" });
  });

  it("an ask whose allowed_resolvers leave the person out is refused for that one only", async () => {
    const [open1, open2] = await asks(2);
    const closed = await ask({ allowed_resolvers: ["human:alice"] });
    const report = await answerGroup(bob, [open1!, closed, open2!], "approve");
    expect(outcomes(report.results)).toEqual([
      [open1, "answered"],
      [closed, "refused"],
      [open2, "answered"],
    ]);
    expect(report.results[1]).toMatchObject({ reason: expect.stringMatching(/allowed_resolvers/) });
    expect(await statusOf(closed)).toBe("open");
    expect(await resolutionOf(closed)).toBeNull();
    expect(await deliveries(closed)).toEqual([]);
    expect(await answeredEvents(closed)).toBe(0);
  });

  it("a quorum ask gets this person's vote and stays open; the second person's group answers them", async () => {
    const ids = await asks(2, {}, QUORUM_BOT);
    const first = await answerGroup(alice, ids, "approve");
    expect(outcomes(first.results)).toEqual(ids.map((id) => [id, "vote recorded"]));
    expect(first.results[0]).toMatchObject({ approvals: { have: 1, need: 2 } });
    for (const id of ids) {
      expect(await statusOf(id)).toBe("open");
      expect(await resolutionOf(id)).toBeNull();
    }
    const second = await answerGroup(bob, ids, "approve");
    expect(outcomes(second.results)).toEqual(ids.map((id) => [id, "answered"]));
    for (const id of ids) expect(await statusOf(id)).toBe("answered");
  });

  it("a value outside an ask's options answers none; an input ask is never answered together", async () => {
    const [a, b] = await asks(2);
    const input = await ask({ mode: "input", schema: { type: "object", properties: { x: { type: "string" } } } });
    const report = await answerGroup(alice, [a!, b!], "ship it");
    expect(outcomes(report.results)).toEqual([
      [a, "refused"],
      [b, "refused"],
    ]);
    expect((await answerGroup(alice, [input], "approve")).results[0]).toMatchObject({ outcome: "refused" });
    for (const id of [a!, b!, input]) expect(await statusOf(id)).toBe("open");
  });
});

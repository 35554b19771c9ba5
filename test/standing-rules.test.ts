/**
 * Standing rules (docs/policies.md "Standing rules") over the real `/v1` API served in-process on
 * real PostgreSQL, with the injected clock: "answer and remember" answers the ask as the person and
 * saves the rule; the next matching ask is answered at its submit by `system:rule/<id>` — a plain
 * §6 Response whose comment names who set it, audited, with a push obligation — and never an ask
 * outside the scope, an input ask, a quorum ask, a sensitive one, one with `allowed_resolvers`, one
 * that insists on a person, or one its creator may no longer answer; revocation and expiry take
 * effect on the next ask; the hourly cap stops the rule and tells its creator; shadow mode answers
 * nothing and counts; a person and a rule racing leave exactly one Response; the policy's
 * `standing_rules` settings switch rules off and cap their length; `ma2h-hub rule list|revoke`.
 */
// covers: lib/standing-rules/, lib/http/routes/submit.ts, cli/rule-commands.ts
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { fixedClock, setClock } from "../lib/clock";
import { db } from "../lib/db";
import { itemForHuman } from "../lib/inbox/item";
import { resolveMessage } from "../lib/messages/resolve";
import { PolicyFileSchema } from "../lib/policies/model";
import { applyPolicy } from "../lib/policies/store";
import { changeRole, memberByHandle } from "../lib/principals/members";
import { answerByStandingRule } from "../lib/standing-rules/apply";
import { answerAndRemember, listRules, revokeRule } from "../lib/standing-rules/store";
import { cliInProcess } from "./support/cli-in-process";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";

const BOT = "deploybot";
const OTHER = "otherbot";
const fx = useHubFixture({
  server: "in-process",
  accounts: {
    acme: {
      agents: [BOT, OTHER],
      humans: [
        { handle: "olga", role: "owner" },
        { handle: "alice", role: "member" },
        { handle: "bob", role: "member" },
        { handle: "carol", role: "member" },
      ],
    },
  },
});
const OWNER = { actor: "human:olga", role: "owner" } as const;

let accountId = "";
const userId = async (handle: string) =>
  (await db().user.findUniqueOrThrow({ where: { email: `${handle}@acme.test` }, select: { id: true } })).id;
const T0 = new Date("2026-12-08T09:00:00.000Z");
const clock = fixedClock(T0);

beforeAll(async () => {
  accountId = (await db().account.findUniqueOrThrow({ where: { slug: "acme" }, select: { id: true } })).id;
});
afterEach(async () => {
  setClock(null);
  await db().standingRule.deleteMany({});
  await applyPolicy(accountId, PolicyFileSchema.parse({ version: 1 }), OWNER);
});

const CONFIRM = { mode: "confirm" };
async function ask(over: Record<string, unknown> = {}, agent = BOT): Promise<string> {
  const body = envelope("ask", agent, { request: CONFIRM, ...over });
  const res = await fx.agent(agent, "acme").post("/v1/messages", body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  expect(res.body.status).toBe("open"); // the ack says open even when a rule answers at once
  return res.body.id as string;
}
const view = async (id: string, agent = BOT) => (await fx.agent(agent, "acme").get(`/v1/messages/${id}`)).body;
const statusOf = async (id: string) => (await db().message.findUniqueOrThrow({ where: { id } })).status;
/** alice answers a first ask with approve and remembers it (confirm asks of deploybot). */
async function remember(
  req: Partial<Parameters<typeof answerAndRemember>[2]> = {},
  over: Record<string, unknown> = {},
) {
  const first = await ask(over);
  return answerAndRemember(await userId("alice"), first, { value: "approve", duration: "2h", ...req });
}

describe("answer and remember", () => {
  it("answers the ask as the person and saves the rule; the next matching ask is answered at once by the rule", async () => {
    setClock(clock);
    clock.set(T0);
    const first = await ask({ title: "Deploy build #141" });
    const rule = await answerAndRemember(await userId("alice"), first, {
      value: "approve",
      duration: "2h",
      titlePattern: "Deploy build #*",
    });
    expect(rule).toMatchObject({ creator: "alice", state: "active", shadow: false, hits: 0 });
    expect(rule.expiresAt).toEqual(new Date(T0.getTime() + 2 * 3_600_000));
    expect((await view(first)).response.response).toMatchObject({ actor: "human:alice", value: "approve" });

    const next = await ask({ title: "Deploy build #142" });
    const body = await view(next);
    expect(body.status).toBe("answered");
    expect(body.response).toMatchObject({
      resolution: "answered",
      response: {
        actor: `system:rule/${rule.id}`,
        value: "approve",
        edited: false,
        comment: "answered by a standing rule set by human:alice",
      },
    });
    // Signed and pushed like any Response: the push obligation, and the audit rows.
    const events = await db().auditEvent.findMany({
      where: { messageId: next, event: { not: { startsWith: "response." } } },
      orderBy: { id: "asc" },
    });
    expect(events.map((e) => [e.event, e.actor])).toEqual([
      ["message.submitted", `agent:${BOT}`],
      ["message.answered", `system:rule/${rule.id}`],
      ["rule.answered", `system:rule/${rule.id}`],
    ]);
    expect(events[2]?.detail).toEqual({ rule: rule.id, set_by: "human:alice", value: "approve" });
    // The item says so, with who set it and its count.
    const item = await itemForHuman(await userId("bob"), next);
    expect(item?.answeredByRule).toMatchObject({ id: rule.id, creator: "alice", hits: 1 });
    expect((await listRules(accountId))[0]?.hits).toBe(1);
  });

  it("refuses what a rule may never hold, changing nothing", async () => {
    const alice = await userId("alice");
    const input = await ask({
      request: { mode: "input", schema: { type: "object", properties: { r: { type: "string" } } } },
    });
    await expect(answerAndRemember(alice, input, { value: "x", duration: "2h" })).rejects.toMatchObject({
      code: "not_authorized",
    });
    const other = await ask();
    await expect(answerAndRemember(alice, other, { value: "maybe", duration: "2h" })).rejects.toMatchObject({
      code: "invalid_field",
    });
    await expect(
      answerAndRemember(alice, other, { value: "approve", duration: "2h", titlePattern: "Nothing like it" }),
    ).rejects.toMatchObject({ code: "invalid_field", message: expect.stringMatching(/does not match/) });
    await expect(
      answerAndRemember(alice, other, { value: "approve", duration: "until_revoked" }),
    ).rejects.toMatchObject({ code: "invalid_field", message: expect.stringMatching(/at most 8h/) });
    expect(await statusOf(other)).toBe("open");
    expect(await db().standingRule.count()).toBe(0);
  });
});

describe("what a rule never answers", () => {
  it("outside its scope, input, sensitive, allowed_resolvers, x-ma2h-human-only, another agent", async () => {
    const rule = await remember({ tags: ["prod"] }, { tags: ["prod", "eu"] });
    const answered = await ask({ tags: ["prod"] });
    expect(await statusOf(answered)).toBe("answered");
    const untouched = [
      await ask({ tags: ["staging"] }),
      await ask({ tags: ["prod"], sensitive: true }),
      await ask({ tags: ["prod"], request: { mode: "confirm", allowed_resolvers: ["human:alice"] } }),
      await ask({ tags: ["prod"], request: { mode: "confirm", "x-ma2h-human-only": true } }),
      await ask({
        tags: ["prod"],
        request: {
          mode: "select",
          options: [
            { value: "approve", label: "A" },
            { value: "deny", label: "D" },
          ],
        },
      }),
      await ask({ tags: ["prod"] }, OTHER),
    ];
    for (const id of untouched) expect(await statusOf(id), id).toBe("open");
    expect((await listRules(accountId)).find((r) => r.id === rule.id)?.hits).toBe(1);
  });

  it("a quorum ask, and an ask its creator may no longer answer (policy, role)", async () => {
    await remember();
    await applyPolicy(
      accountId,
      PolicyFileSchema.parse({
        version: 1,
        rules: [
          {
            name: "two",
            match: { agent: BOT, tags_any: ["quorum"], mode: "confirm" },
            assign: ["human:alice", "human:bob"],
            approvals: 2,
          },
          { name: "bob-only", match: { agent: BOT, tags_any: ["bob"] }, assign: ["human:bob"] },
        ],
      }),
      OWNER,
    );
    expect(await statusOf(await ask({ tags: ["quorum"] }))).toBe("open");
    expect(await statusOf(await ask({ tags: ["bob"] }))).toBe("open");
    expect(await statusOf(await ask())).toBe("answered");
    const m = await memberByHandle("acme", "alice");
    await changeRole(m.accountId, m.membershipId, "viewer");
    try {
      expect(await statusOf(await ask())).toBe("open");
    } finally {
      await changeRole(m.accountId, m.membershipId, "member");
    }
  });
});

describe("a rule's life", () => {
  it("revocation and expiry take effect on the next ask", async () => {
    setClock(clock);
    clock.set(T0);
    const rule = await remember({ duration: "30m" });
    clock.set(new Date(T0.getTime() + 29 * 60_000));
    expect(await statusOf(await ask())).toBe("answered");
    clock.set(new Date(T0.getTime() + 30 * 60_000));
    expect(await statusOf(await ask())).toBe("open");
    expect((await listRules(accountId))[0]?.state).toBe("expired");

    clock.set(new Date(T0.getTime() + 31 * 60_000));
    const second = await remember({ duration: "2h" });
    expect(await statusOf(await ask())).toBe("answered");
    // bob may not revoke alice's rule (404 as unknown); olga (owner) may.
    await expect(revokeRule(accountId, second.id, { userId: await userId("bob") })).rejects.toMatchObject({
      code: "not_found",
    });
    expect(await revokeRule(accountId, second.id, { userId: await userId("olga") })).toMatchObject({
      state: "revoked",
    });
    expect(await statusOf(await ask())).toBe("open");
    expect(rule.id).not.toBe(second.id);
  });

  it("the hourly cap stops the rule and tells its creator", async () => {
    await applyPolicy(
      accountId,
      PolicyFileSchema.parse({ version: 1, standing_rules: { answers_per_hour: 2 } }),
      OWNER,
    );
    const rule = await remember();
    expect(await statusOf(await ask())).toBe("answered");
    expect(await statusOf(await ask())).toBe("answered");
    const third = await ask();
    expect(await statusOf(third)).toBe("open");
    expect((await listRules(accountId))[0]).toMatchObject({ id: rule.id, state: "stopped", hits: 2 });
    const stopped = await db().auditEvent.findMany({ where: { event: "rule.stopped" } });
    expect(stopped.map((e) => [e.messageId, e.detail])).toEqual([[third, { rule: rule.id, answers_per_hour: 2 }]]);
    expect(await statusOf(await ask())).toBe("open");
  });

  it("shadow mode answers nothing and counts", async () => {
    const rule = await remember({ shadow: true });
    const ids = [await ask(), await ask()];
    for (const id of ids) expect(await statusOf(id)).toBe("open");
    expect((await listRules(accountId))[0]).toMatchObject({ id: rule.id, state: "shadow", hits: 0, shadowHits: 2 });
    expect(await db().auditEvent.count({ where: { event: "rule.shadow_hit" } })).toBe(2);
  });

  it("standing_rules.enabled false: nothing is answered, and no rule can be made", async () => {
    await remember();
    await applyPolicy(accountId, PolicyFileSchema.parse({ version: 1, standing_rules: { enabled: false } }), OWNER);
    expect(await statusOf(await ask())).toBe("open");
    await expect(remember()).rejects.toMatchObject({ code: "not_authorized", message: expect.stringMatching(/off/) });
  });
});

describe("races", () => {
  it("a person answering the ask a rule answers: exactly one terminal Response", async () => {
    await remember();
    const principal = fx.account("acme");
    expect(principal).toBeDefined();
    for (let round = 0; round < 5; round++) {
      // Submitted with no rule live, then the rule and bob race on the §7 compare-and-set.
      await db().standingRule.updateMany({ data: { revokedAt: new Date() } });
      const id = await ask();
      await db().standingRule.updateMany({ data: { revokedAt: null } });
      const agent = await db().agent.findFirstOrThrow({ where: { accountId, agentId: BOT } });
      const [byRule, byBob] = await Promise.allSettled([
        answerByStandingRule({ kind: "agent", accountId, agentId: BOT, agentRowId: agent.id } as never, id),
        resolveMessage({ kind: "human", userId: await userId("bob") }, id, { resolution: "answered", value: "deny" }),
      ]);
      expect(byRule.status).toBe("fulfilled");
      const resolutions = await db().resolution.findMany({ where: { messageId: id } });
      expect(resolutions).toHaveLength(1);
      const winner = resolutions[0]?.actor;
      expect(byBob.status === "fulfilled" ? winner === "human:bob" : winner?.startsWith("system:rule/")).toBe(true);
    }
  });
});

describe("ma2h-hub rule", () => {
  it("list and revoke, audited as system:cli", async () => {
    const rule = await remember();
    const list = await cliInProcess(["rule", "list", "--account", "acme", "--json"]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.json).toMatchObject({
      rules: [
        {
          id: rule.id,
          set_by: "human:alice",
          state: "active",
          scope: { agent: BOT, mode: "confirm", options: ["approve", "deny"], value: "approve" },
        },
      ],
    });
    const revoked = await cliInProcess(["rule", "revoke", rule.id, "--account", "acme", "--json"]);
    expect(revoked.json).toMatchObject({ rule: { id: rule.id, state: "revoked" } });
    const audit = await db().auditEvent.findFirst({ where: { event: "rule.revoked" }, orderBy: { id: "desc" } });
    expect(audit?.actor).toBe("system:cli");
    const unknown = await cliInProcess(["rule", "revoke", "rule_nope", "--account", "acme", "--json"]);
    expect(unknown.json).toMatchObject({ error: { code: "not_found" } });
  });
});

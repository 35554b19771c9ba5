/**
 * The action buttons of a browser-push notification (docs/notifications.md "Answering from the
 * notification"), in this process against a real database: which asks get buttons (a `confirm`, a
 * `select` of at most two options; never an input ask or a sensitive item), how long their tokens
 * live (a day at most, never past the item's expiry), and answering with one — as the token's person,
 * audited as `channel: "push"`, once; not from another person's session; one approval of a quorum,
 * not a resolution; and not at all under a policy's `email_answers: false`.
 */
// covers: lib/notifications/answer-tokens.ts, lib/notifications/web-push/answer.ts, lib/notifications/email-answer.ts
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixedClock, setClock } from "../lib/clock";
import { db } from "../lib/db";
import { envelopeOf } from "../lib/messages/record";
import { submitMessage } from "../lib/messages/submit";
import { actionableOptions, mintPushActions, PUSH_ACTION_TTL_MS } from "../lib/notifications/answer-tokens";
import { answerByPushAction, noticeFor } from "../lib/notifications/web-push/answer";
import { PolicyFileSchema } from "../lib/policies/model";
import { applyPolicy } from "../lib/policies/store";
import { authenticate, requireAgent } from "../lib/principals/authenticate";
import type { AgentPrincipal } from "../lib/principals/types";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";

const SHIP = "shipbot";
const GATE = "gatebot/prod";
const LOCK = "lockbot";

const hub = useHubFixture({
  server: "none",
  accounts: {
    acme: {
      agents: [SHIP, GATE, LOCK],
      humans: [
        { handle: "rita", role: "owner" },
        { handle: "lou", role: "member" },
        { handle: "zoe", role: "member" },
      ],
    },
  },
  setup: async () => {
    const account = await db().account.findUniqueOrThrow({ where: { slug: "acme" } });
    await applyPolicy(
      account.id,
      PolicyFileSchema.parse({
        version: 1,
        rules: [
          {
            name: "gated",
            match: { agent: "gatebot/*", mode: "confirm" },
            assign: ["human:rita", "human:lou", "human:zoe"],
            approvals: 2,
          },
          { name: "locked", match: { agent: LOCK }, assign: ["human:rita"], email_answers: false },
        ],
      }),
      { actor: "human:rita", role: "owner" },
    );
  },
});

// Now: the envelopes are made with the real time (and may carry an expiry from it).
const T0 = new Date(Math.floor(Date.now() / 1000) * 1000);
const HOUR = 3_600_000;
const agents: Record<string, AgentPrincipal> = {};
const users: Record<string, string> = {};

beforeAll(async () => {
  setClock(fixedClock(T0));
  for (const id of [SHIP, GATE, LOCK])
    agents[id] = requireAgent(
      await authenticate(new Headers({ authorization: `Bearer ${hub.account("acme").keys[id]}` })),
    );
  for (const handle of ["rita", "lou"])
    users[handle] = (await db().user.findUniqueOrThrow({ where: { email: `${handle}@acme.test` } })).id;
});
afterAll(() => setClock(null));

let n = 0;
/** Submits an ask and mints the push actions of one push row of `handle` for it, as the push sender does. */
async function pushed(agent: string, handle: string, fields: Record<string, unknown> = {}) {
  const title = `push item ${++n}`;
  const { ack } = await submitMessage(
    agents[agent] as AgentPrincipal,
    envelope("ask", agent, { title, request: { mode: "confirm" }, ...fields }),
  );
  const message = await db().message.findUniqueOrThrow({ where: { id: ack.id } });
  const row = await db().notification.create({
    data: {
      id: randomUUID(),
      messageId: ack.id,
      userId: users[handle] as string,
      channel: "push",
      kind: "new",
      nextAttemptAt: T0,
      createdAt: T0,
      updatedAt: T0,
    },
  });
  const actions = await mintPushActions(row, message, envelopeOf(message), T0);
  return { id: ack.id, title, actions, token: (value: string) => actions.find((a) => a.value === value)?.token ?? "" };
}

describe("which notifications carry buttons", () => {
  it("a confirm ask or a two-option select; not three options, an input ask or a sensitive item", async () => {
    const confirm = await pushed(SHIP, "rita");
    expect(confirm.actions.map((a) => [a.value, a.label])).toEqual([
      ["approve", "Approve"],
      ["deny", "Deny"],
    ]);
    for (const a of confirm.actions) expect(a.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const two = {
      mode: "select",
      options: [
        { value: "ship", label: "Ship" },
        { value: "hold", label: "Hold" },
      ],
    };
    expect((await pushed(SHIP, "rita", { request: two })).actions.map((a) => a.value)).toEqual(["ship", "hold"]);
    const three = { ...two, options: [...two.options, { value: "abort", label: "Abort" }] };
    expect((await pushed(SHIP, "rita", { request: three })).actions).toEqual([]);
    const message = await db().message.findUniqueOrThrow({ where: { id: confirm.id } });
    expect(actionableOptions(envelopeOf(message), true)).toEqual([]);
    const input = await pushed(SHIP, "rita", {
      request: { mode: "input", schema: { type: "object", properties: { note: { type: "string" } } } },
    });
    expect(input.actions).toEqual([]);
  });

  it("a token lives a day at most, and never past the item's expiry", async () => {
    const long = await pushed(SHIP, "rita", { expires_at: new Date(T0.getTime() + 48 * HOUR).toISOString() });
    const short = await pushed(SHIP, "rita", { expires_at: new Date(T0.getTime() + HOUR).toISOString() });
    const expiries = async (id: string) =>
      (await db().emailAnswerToken.findMany({ where: { messageId: id } })).map((t) => t.expiresAt.getTime());
    expect(await expiries(long.id)).toEqual([T0.getTime() + PUSH_ACTION_TTL_MS, T0.getTime() + PUSH_ACTION_TTL_MS]);
    expect(await expiries(short.id)).toEqual([T0.getTime() + HOUR, T0.getTime() + HOUR]);
  });
});

describe("answering with a button", () => {
  it("answers as the token's person, audited as push; the token is spent and its sibling finds the item closed", async () => {
    const item = await pushed(SHIP, "rita");
    expect(await answerByPushAction(item.token("approve"), users.rita as string)).toEqual({
      state: "answered",
      notice: `Approved — ${item.title}`,
    });
    const row = await db().message.findUniqueOrThrow({ where: { id: item.id }, include: { resolution: true } });
    expect(row.status).toBe("answered");
    expect(row.resolution?.actor).toBe("human:rita");
    const audit = await db().auditEvent.findMany({ where: { messageId: item.id, event: "message.answered" } });
    expect(audit.map((a) => [a.actor, (a.detail as { channel?: string }).channel])).toEqual([["human:rita", "push"]]);
    expect(await answerByPushAction(item.token("approve"), null)).toEqual({ state: "used" });
    expect(await answerByPushAction(item.token("deny"), null)).toEqual({ state: "closed" });
  });

  it("another person's session cannot use it; a made-up token is invalid", async () => {
    const item = await pushed(SHIP, "rita");
    expect(await answerByPushAction(item.token("approve"), users.lou as string)).toEqual({ state: "other_person" });
    expect(await answerByPushAction("A".repeat(43), null)).toEqual({ state: "invalid" });
    const row = await db().message.findUniqueOrThrow({ where: { id: item.id } });
    expect(row.status).not.toBe("answered");
    expect(await db().emailAnswerToken.count({ where: { messageId: item.id, usedAt: { not: null } } })).toBe(0);
  });

  it("under a quorum it records one approval, not a resolution", async () => {
    const item = await pushed(GATE, "rita", { request: { mode: "confirm" } });
    expect(await answerByPushAction(item.token("approve"), null)).toEqual({
      state: "recorded",
      notice: `Approval recorded (1 of 2) — ${item.title}`,
    });
    const row = await db().message.findUniqueOrThrow({ where: { id: item.id } });
    expect(row.status).not.toBe("answered");
    expect(await db().approvalVote.count({ where: { messageId: item.id } })).toBe(1);
  });

  it("a policy's email_answers: false refuses it", async () => {
    const item = await pushed(LOCK, "rita");
    expect(item.actions).toHaveLength(2); // minted here regardless: the answer side refuses on its own
    const refused = await answerByPushAction(item.token("approve"), users.rita as string);
    expect(refused.state).toBe("refused");
    expect(refused.reason).toMatch(/answered on its page in the Hub/);
  });

  it("names the answer in the past tense for approve and deny, the label otherwise", () => {
    expect(noticeFor("Approve", "deploy #142")).toBe("Approved — deploy #142");
    expect(noticeFor("Deny", "deploy #142")).toBe("Denied — deploy #142");
    expect(noticeFor("Hold", "deploy #142")).toBe("Hold — deploy #142");
  });
});

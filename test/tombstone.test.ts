/**
 * A purged message's inbox page (§8.2 retention, §14.2): the tombstone keeps type, title, the
 * terminal status, who resolved it and when, and whether the answer never reached the agent — and
 * nothing of its value or comment. A seat holder of the account gets that view; an outsider gets
 * null (the page's 404, as for an unknown id); the submitting agent still reads 410 gone.
 * Also the v0.6 free-form answer from the inbox (§5.2 allow_edit): verbatim, `edited: true`.
 */
// covers: lib/inbox/tombstone.ts, lib/messages/retention.ts, lib/inbox/answer.ts
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixedClock, setClock } from "../lib/clock";
import { db } from "../lib/db";
import { answerAsHuman } from "../lib/inbox/answer";
import { itemForHuman } from "../lib/inbox/item";
import { tombstoneForHuman } from "../lib/inbox/tombstone";
import { readMessage } from "../lib/messages/read";
import { purgeExpiredRetention } from "../lib/messages/retention";
import { submitMessage } from "../lib/messages/submit";
import { isHubError } from "@ma2h/protocol/errors";
import { authenticate, requireAgent } from "../lib/principals/authenticate";
import type { AgentPrincipal } from "../lib/principals/types";
import { addUser } from "../lib/principals/users";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";

const A = "deploybot/dev-team";
const fx = useHubFixture({ accounts: { acme: { agents: [A] }, other: { agents: [A] } }, server: "none" });
const clock = fixedClock(new Date("2026-12-02T10:00:00.000Z"));
const acme = fx.account("acme");
let agent: AgentPrincipal;
const users: Record<string, string> = {};

const FREE_FORM_ASK = {
  ma2h_version: "0.6",
  request: {
    mode: "select",
    options: [
      { value: "ship", label: "Ship" },
      { value: "hold", label: "Hold" },
    ],
    permissions: { allow_edit: true },
  },
};

async function submit(body: Record<string, unknown>): Promise<string> {
  clock.advance(1000);
  return (await submitMessage(agent, body)).ack.id;
}

async function agentRead(id: string): Promise<{ status: number; body?: Record<string, any>; code?: string }> {
  try {
    const read = await readMessage(agent, id);
    return {
      status: read.notModified ? 304 : 200,
      body: read.notModified ? undefined : (read.body as Record<string, any>),
    };
  } catch (err) {
    if (isHubError(err)) return { status: err.status, code: err.code };
    throw err;
  }
}

beforeAll(async () => {
  setClock(clock);
  agent = requireAgent(await authenticate(new Headers({ authorization: `Bearer ${acme.keys[A]}` })));
  users.alice = (await addUser("alice@acme.test", "acme", "alice", "owner")).userId;
  users.vic = (await addUser("vic@acme.test", "acme", "vic", "viewer")).userId;
  users.gina = (await addUser("gina@other.test", "other", "gina", "member")).userId;
});

afterAll(() => {
  setClock(null);
});

describe("the free-form answer from the inbox (§5.2 allow_edit, §6 edited)", () => {
  it("reaches the agent verbatim with edited: true; a listed option is edited: false", async () => {
    const own = await submit(envelope("ask", A, { ...FREE_FORM_ASK, title: "Ship, hold?" }));
    const item = await itemForHuman(users.alice as string, own);
    expect(item?.ask?.freeForm).toBe(true);
    const typed = "  hold until the <b>migration</b> lands\nthen ship  ";
    expect(await answerAsHuman(users.alice as string, own, { kind: "answer", value: typed })).toEqual({
      ok: true,
      status: "answered",
    });
    const got = await agentRead(own);
    expect(got.body?.response.response).toMatchObject({ actor: "human:alice", value: typed, edited: true });
    const after = await itemForHuman(users.alice as string, own);
    expect(after?.resolution).toMatchObject({ value: typed, valueLabel: null, edited: true });

    const listed = await submit(envelope("ask", A, FREE_FORM_ASK));
    await answerAsHuman(users.alice as string, listed, { kind: "answer", value: "hold" });
    expect((await agentRead(listed)).body?.response.response).toMatchObject({ value: "hold", edited: false });
  });

  it("on a sensitive: true ask the person's own words are masked in the inbox, not for the agent (§9.6)", async () => {
    const id = await submit(envelope("ask", A, { ...FREE_FORM_ASK, sensitive: true }));
    expect(
      await answerAsHuman(users.alice as string, id, { kind: "answer", value: "the vault path is /kv/prod" }),
    ).toEqual({ ok: true, status: "answered" });
    const item = await itemForHuman(users.alice as string, id);
    expect(item?.resolution).toMatchObject({ value: "••••••", edited: true });
    expect(JSON.stringify(item)).not.toContain("/kv/prod");
    expect((await agentRead(id)).body?.response.response).toMatchObject({
      value: "the vault path is /kv/prod",
      edited: true,
    });
    // A listed option on the same kind of ask is the agent's own text and stays readable.
    const listed = await submit(envelope("ask", A, { ...FREE_FORM_ASK, sensitive: true }));
    await answerAsHuman(users.alice as string, listed, { kind: "answer", value: "ship" });
    expect((await itemForHuman(users.alice as string, listed))?.resolution).toMatchObject({
      value: "ship",
      valueLabel: "Ship",
      edited: false,
    });
  });

  it("refuses a blank one, and an off-menu value where allow_edit is not honoured (0.5)", async () => {
    const own = await submit(envelope("ask", A, FREE_FORM_ASK));
    expect(await answerAsHuman(users.alice as string, own, { kind: "answer", value: "  \n " })).toMatchObject({
      ok: false,
      code: "invalid_field",
    });
    const old = await submit(envelope("ask", A, { request: { ...FREE_FORM_ASK.request } }));
    expect((await itemForHuman(users.alice as string, old))?.ask?.freeForm).toBe(false);
    expect(await answerAsHuman(users.alice as string, old, { kind: "answer", value: "my own words" })).toMatchObject({
      ok: false,
      code: "invalid_field",
    });
    expect((await agentRead(old)).body?.status).toBe("open");
  });
});

// Last: retention purges every terminal message of this database.
describe("the tombstone of a purged message (§8.2, §14.2)", () => {
  it("keeps title, outcome, purge time and never-reached for a seat holder; 404 to others; 410 to the agent", async () => {
    const unread = await submit(envelope("ask", A, { title: "Rotate now?" }));
    const read = await submit(envelope("ask", A, { title: "Merge now?" }));
    const declined = await submit(envelope("ask", A, { title: "Deploy Friday?" }));
    await answerAsHuman(users.alice as string, unread, { kind: "answer", value: "hold", comment: "secret-comment" });
    await answerAsHuman(users.alice as string, read, { kind: "answer", value: "ship" });
    await answerAsHuman(users.alice as string, declined, { kind: "decline" });
    expect((await agentRead(read)).status).toBe(200); // delivered to the agent
    expect((await agentRead(declined)).status).toBe(200);
    const resolvedAt = (await db().resolution.findUnique({ where: { messageId: unread } }))?.resolvedAt.toISOString();

    const purgedAt = new Date(clock.now().getTime() + 400 * 86_400_000);
    expect(await purgeExpiredRetention(purgedAt)).toBeGreaterThanOrEqual(3);
    expect(await itemForHuman(users.alice as string, unread)).toBeNull();

    const tomb = await tombstoneForHuman(users.alice as string, unread);
    expect(tomb).toEqual({
      id: unread,
      account: "acme",
      type: "ask",
      title: "Rotate now?",
      status: "answered",
      actor: "human:alice",
      resolvedAt,
      purgedAt: purgedAt.toISOString(),
      deliveryExpiredAt: purgedAt.toISOString(),
    });
    expect(JSON.stringify(await db().messageTombstone.findUnique({ where: { id: unread } }))).not.toMatch(
      /secret-comment|"hold"/,
    );
    // A viewer holds a seat too; the answer that reached the agent has no never-reached line.
    expect(await tombstoneForHuman(users.vic as string, read)).toMatchObject({
      title: "Merge now?",
      status: "answered",
      deliveryExpiredAt: null,
    });
    expect(await tombstoneForHuman(users.alice as string, declined)).toMatchObject({
      status: "declined",
      actor: "human:alice",
      deliveryExpiredAt: null,
    });

    // Another account's member: nothing, exactly as for an unknown id.
    expect(await tombstoneForHuman(users.gina as string, unread)).toBeNull();
    expect(await tombstoneForHuman(users.alice as string, "msg_doesnotexist")).toBeNull();

    // The submitter's pull stays 410 gone (§8.2).
    expect(await agentRead(unread)).toEqual({ status: 410, code: "gone" });
  });

  it("an identical replay of a purged message is 410 gone however old its key; a new payload past the TTL is a first submit", async () => {
    const body = envelope("ask", A, { title: "Replayed after purge?" });
    const id = await submit(body);
    await answerAsHuman(users.alice as string, id, { kind: "answer", value: "ship" });
    const purgedAt = new Date(clock.now().getTime() + 400 * 86_400_000);
    expect(await purgeExpiredRetention(purgedAt)).toBeGreaterThanOrEqual(1);
    // Retention (≥ 1 day) outlasts the idempotency TTL (1 day by default): the key is past its TTL.
    clock.advance(401 * 86_400_000);
    const attempt = async (b: Record<string, unknown>) => {
      try {
        return { status: 202, id: (await submitMessage(agent, b)).ack.id };
      } catch (err) {
        if (isHubError(err)) return { status: err.status, code: err.code, message: err.message };
        throw err;
      }
    };
    const keyed = () => db().message.count({ where: { idempotencyKey: body.idempotency_key as string } });
    // The stale envelope's question was asked and answered: no second decision, the pull's 410.
    expect(await attempt(structuredClone(body))).toEqual({
      status: 410,
      code: "gone",
      message: "the message for this idempotency_key was deleted after retention",
    });
    expect(
      await attempt({ ...structuredClone(body), agent: { ...(body.agent as object), run_id: "run_restarted" } }),
    ).toMatchObject({
      status: 410,
    });
    expect(await keyed()).toBe(0);
    // A different payload under the key past its TTL is a new message (§8.1 dedups for the TTL).
    const fresh = await attempt({ ...structuredClone(body), title: "A new question" });
    expect(fresh).toMatchObject({ status: 202 });
    expect(fresh.id).not.toBe(id);
    expect(await keyed()).toBe(1);
  });
});

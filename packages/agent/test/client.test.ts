/**
 * @ma2h/agent client against the real Hub: every verb submitted from the friendly inputs and its
 * typed §6 Response once a person resolves with a PAT (an allow_edit select's edited answer, an
 * expiry default, a cancel), the typed §8.5 errors (404, 401, 403, 409 with the existing outcome,
 * 422 refused locally without a request and answered by the Hub, a real 429), the local capability
 * checks, and a crash between submit and ack recovered from the journaled bytes.
 */
// covers: packages/agent/src/client.ts, packages/agent/src/errors.ts, packages/agent/src/journal.ts
import { mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { db } from "../../../lib/db";
import {
  AgentIdMismatchError,
  AlreadyTerminalError,
  CapabilityError,
  FileSubmitJournal,
  IdempotencyConflictError,
  InvalidFieldError,
  Ma2hClient,
  type Ma2hClientOptions,
  NetworkError,
  NotAcknowledgeableError,
  NotFoundError,
  RateLimitedError,
  UnauthenticatedError,
} from "../src";
import { client } from "../../../test/support/hub";
import { useHubFixture } from "../../../test/support/hub-fixture";
import { startFaultProxy } from "../../../test/support/fault-proxy";

const A = "deploybot/dev-team";
const OTHER = "overseer/fleet";
const DEPTH_BOT = "depth/bot";
const DEPTH = 3;
const hub = useHubFixture({
  accounts: { acme: { agents: [A, OTHER, DEPTH_BOT], humans: [{ handle: "alice", role: "owner" }] } },
  env: { MA2H_INBOX_DEPTH: String(DEPTH) },
});
const acme = hub.account("acme");

/** Counts the requests a client makes, to prove a refusal sent nothing. */
function counting(): { fetch: typeof fetch; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    fetch: (input, init) => {
      calls.push(`${init?.method ?? "GET"} ${new URL(String(input)).pathname}`);
      return fetch(input, init);
    },
  };
}

const sdk = (o: Partial<Ma2hClientOptions> = {}) =>
  new Ma2hClient({ url: hub.url, apiKey: acme.keys[A]!, agentId: A, retry: { baseDelayMs: 20 }, ...o });
const alice = () => client(hub.url, acme.tokens.alice);
const resolveAs = (id: string, body: Record<string, unknown>) => alice().post(`/v1/messages/${id}/resolve`, body);

describe("submit and wait for the typed Response (§5, §6, §8.1, §8.2)", () => {
  it("discovers the capability once and notifies", async () => {
    const c = counting();
    const agent = sdk({ fetch: c.fetch });
    const { ack } = await agent.messages.notify({
      title: "Deploy finished",
      body: "v1.2.3 is live",
      priority: "low",
      tags: ["ci"],
    });
    expect(ack.status).toBe("delivered");
    await agent.messages.notify({ title: "Second" });
    expect(c.calls.filter((x) => x.endsWith("/.well-known/ma2h"))).toHaveLength(1);
    const stored = await client(hub.url, acme.keys[A]).get(`/v1/messages/${ack.id}`);
    expect(stored.body).toMatchObject({ ma2h_version: "0.6", type: "notify", title: "Deploy finished", tags: ["ci"] });
    expect(stored.body.agent).toMatchObject({ id: A, runtime: "other" });
  });

  it("confirm: a person approves; wait returns the answered Response with state verbatim", async () => {
    const handle = await sdk({ runtime: "cli", project: "web" }).ask.confirm({
      title: "Ship it?",
      state: { step: 3, nested: { a: [1, 2] } },
    });
    expect(handle.ack.status).toBe("open");
    setTimeout(() => void resolveAs(handle.id, { resolution: "answered", value: "approve", comment: "go" }), 300);
    const r = await handle.wait({ timeoutMs: 30_000 });
    expect(r).toMatchObject({
      in_reply_to: handle.id,
      resolution: "answered",
      response: { value: "approve", edited: false, actor: "human:alice", comment: "go" },
      state: { step: 3, nested: { a: [1, 2] } },
    });
    expect(r.resolution_id).toMatch(/^res_/);
  });

  it("select with allowEdit: a free-form answer arrives as edited", async () => {
    const handle = await sdk().messages.ask.select({
      title: "Which way?",
      options: ["ship", { value: "hold", label: "Hold for review" }],
      allowEdit: true,
    });
    const got = await client(hub.url, acme.keys[A]).get(`/v1/messages/${handle.id}`);
    expect(got.body.request.permissions).toEqual({ allow_edit: true });
    expect(
      (await resolveAs(handle.id, { resolution: "answered", value: "hold until the migration lands" })).status,
    ).toBe(200);
    const r = await handle.wait({ timeoutMs: 10_000 });
    expect(r.response).toMatchObject({ value: "hold until the migration lands", edited: true });
  });

  it("input: the answer object; task: completed", async () => {
    const agent = sdk();
    const input = await agent.messages.ask.input({
      title: "Why?",
      schema: { type: "object", properties: { reason: { type: "string" } }, required: ["reason"] },
    });
    await resolveAs(input.id, { resolution: "answered", value: { reason: "flaky test" } });
    expect((await input.wait({ timeoutMs: 10_000 })).response?.value).toEqual({ reason: "flaky test" });

    const task = await agent.messages.task({
      title: "Rotate the key",
      action: { instructions: "Rotate API_SIGNING_KEY", checklist: ["generate", "update"] },
    });
    await resolveAs(task.id, { resolution: "completed", comment: "done" });
    const r = await task.wait({ timeoutMs: 10_000 });
    expect(r).toMatchObject({ resolution: "completed", response: { comment: "done", actor: "human:alice" } });
  });

  it("expiry with a default: wait returns expired, defaulted, the system actor", async () => {
    const handle = await sdk().messages.ask.confirm({
      title: "Auto-deny soon",
      expiresAt: new Date(Date.now() + 1500),
      defaultOnExpire: "deny",
    });
    const r = await handle.wait({ timeoutMs: 20_000 });
    expect(r).toMatchObject({
      resolution: "expired",
      defaulted: true,
      response: { value: "deny", actor: "system:default_on_expire" },
    });
  });

  it("cancel: the handle withdraws the ask and wait returns cancelled; acknowledge records the receipt", async () => {
    const handle = await sdk().messages.ask.confirm({ title: "Never mind" });
    await expect(handle.acknowledge()).rejects.toBeInstanceOf(NotAcknowledgeableError); // 409 while open
    expect(await handle.cancel()).toEqual({ id: handle.id, status: "cancelled" });
    const r = await handle.wait({ timeoutMs: 10_000 });
    expect(r.resolution).toBe("cancelled");
    const ack = await handle.acknowledge({ note: "ok, dropping it", resolutionId: r.resolution_id });
    expect(ack).toMatchObject({ type: "ack", in_reply_to: handle.id, note: "ok, dropping it", by: `agent:${A}` });
  });
});

describe("typed errors (§8.5)", () => {
  it("404 unknown id, 401 bad key, 403 agent_id_mismatch", async () => {
    const e404 = await sdk()
      .messages.get("msg_0000000000000000000000000a")
      .catch((e) => e);
    expect(e404).toBeInstanceOf(NotFoundError);
    expect([e404.status, e404.code, e404.receivedCode]).toEqual([404, "not_found", "not_found"]);

    const e401 = await sdk({ apiKey: "ma2h_not_a_key" })
      .notify({ title: "x" })
      .catch((e) => e);
    expect(e401).toBeInstanceOf(UnauthenticatedError);
    expect(e401.message).not.toContain("ma2h_not_a_key");

    // A's key, another agent's id in the envelope.
    const e403 = await sdk({ agentId: OTHER })
      .notify({ title: "x" })
      .catch((e) => e);
    expect(e403).toBeInstanceOf(AgentIdMismatchError);
    expect(e403.status).toBe(403);
  });

  it("409 already_terminal on a cancel after the answer, carrying the existing outcome", async () => {
    const handle = await sdk().messages.ask.confirm({ title: "Answered first" });
    await resolveAs(handle.id, { resolution: "answered", value: "deny" });
    const err = await handle.cancel().catch((e) => e);
    expect(err).toBeInstanceOf(AlreadyTerminalError);
    expect(err.existing).toEqual({ id: handle.id, status: "answered", resolution: "answered" });
  });

  it("422 refused locally (no request) and 422 answered by the Hub", async () => {
    const c = counting();
    const agent = sdk({ fetch: c.fetch });
    await agent.capability();
    const before = c.calls.length;
    const dup = await agent.ask
      .select({
        title: "Dup",
        options: [
          { value: "a", label: "A" },
          { value: "a", label: "Also A" },
        ],
      })
      .catch((e) => e);
    expect(dup).toBeInstanceOf(InvalidFieldError);
    expect(dup.local).toBe(true);
    expect(dup.message).toContain("request.options[1].value");
    const scalar = await agent.messages.ask.input({ title: "Scalar", schema: { type: "string" } }).catch((e) => e);
    expect(scalar).toBeInstanceOf(InvalidFieldError);
    const past = await agent.messages.ask
      .confirm({ title: "Past", expiresAt: new Date(Date.now() - 1000) })
      .catch((e) => e);
    expect(past).toBeInstanceOf(InvalidFieldError);
    expect(c.calls.length).toBe(before);

    // The Hub's own 422: an ack naming a resolution that is not this message's.
    const handle = await agent.messages.ask.confirm({ title: "Ack me wrongly" });
    await resolveAs(handle.id, { resolution: "answered", value: "approve" });
    await handle.wait({ timeoutMs: 10_000 });
    const hub422 = await handle.acknowledge({ resolutionId: "res_not_this_one" }).catch((e) => e);
    expect(hub422).toBeInstanceOf(InvalidFieldError);
    expect([hub422.status, hub422.local]).toEqual([422, false]);
  });

  it("capability limits are checked before sending (CapabilityError, no request)", async () => {
    const c = counting();
    const agent = sdk({ fetch: c.fetch });
    const cap = await agent.capability();
    const before = c.calls.length;
    const tooMany = Array.from({ length: (cap.max_context_parts ?? 16) + 1 }, (_, i) => ({
      kind: "text" as const,
      text: `part ${i}`,
    }));
    await expect(agent.messages.notify({ title: "Parts", context: tooMany })).rejects.toBeInstanceOf(CapabilityError);
    const big = "x".repeat((cap.max_body_bytes ?? 1_048_576) + 1);
    await expect(agent.messages.notify({ title: "Big", body: big })).rejects.toBeInstanceOf(CapabilityError);
    expect(c.calls.length).toBe(before);
  });

  it("a real 429 (inbox_depth): a Retry-After longer than the client's budget is thrown at once, typed", async () => {
    const c = counting();
    const agent = sdk({
      apiKey: acme.keys[DEPTH_BOT]!,
      agentId: DEPTH_BOT,
      fetch: c.fetch,
      retry: { maxRetryAfterMs: 5000 },
    });
    for (let i = 0; i < DEPTH; i++) await agent.messages.ask.confirm({ title: `open ${i}` });
    const posts = () => c.calls.filter((x) => x === "POST /v1/messages").length;
    const before = posts();
    const t0 = Date.now();
    const err = await agent.messages.ask.confirm({ title: "one too many" }).catch((e) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err.retryAfterSeconds).toBeGreaterThan(5);
    expect(posts() - before).toBe(1); // never retried immediately (§8.6)
    expect(Date.now() - t0).toBeLessThan(4000);
  });
});

describe("the submit journal: a crash between submit and ack (§8.1)", () => {
  it("replays the exact persisted bytes from a new client and recovers the same message", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "ma2h-journal-")), "journal");
    const proxy = await startFaultProxy(hub.url);
    try {
      // The proxy forwards every submit to the Hub but loses the 202 on its way back.
      proxy.rule = (r) =>
        r.method === "POST" && r.path === "/v1/messages" ? { kind: "lose-reply" } : { kind: "forward" };
      const key = `deploy-${Date.now()}`;
      const count = () => db().message.count({ where: { agent: { agentId: A }, idempotencyKey: key } });
      const crashed = sdk({ url: proxy.url, journal: new FileSubmitJournal(dir), retry: { maxAttempts: 1 } });
      const err = await crashed.messages.ask.confirm({ title: "Crash-safe ask", idempotencyKey: key }).catch((e) => e);
      expect(err).toBeInstanceOf(NetworkError);
      expect(await count()).toBe(1); // the Hub took it; we never saw the id

      // Journal files: one per key, private.
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      const files = readdirSync(dir);
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/^[0-9a-f]{64}\.json$/);
      expect(statSync(join(dir, files[0]!)).mode & 0o777).toBe(0o600);

      // "After the restart": a new client on the same journal directory.
      const journal = new FileSubmitJournal(dir);
      expect(await journal.pending()).toEqual([key]);
      const restarted = sdk({ journal });
      const handle = await restarted.messages.replay(key);
      expect(handle.ack.status).toBe("open");
      const row = await db().message.findFirst({ where: { agent: { agentId: A }, idempotencyKey: key } });
      expect(handle.id).toBe(row?.id);
      expect(await count()).toBe(1);
      expect(await journal.pending()).toEqual([]);
      expect(proxy.seen.filter((r) => r.method === "POST")[0]?.body).toBe(await journal.load(key));

      // Rebuilding the envelope instead (a new created_at) is a different payload: 409.
      const rebuilt = await restarted.messages.ask
        .confirm({ title: "Crash-safe ask", idempotencyKey: key })
        .catch((e) => e);
      expect(rebuilt).toBeInstanceOf(IdempotencyConflictError);
    } finally {
      await proxy.close();
    }
  });
});

describe("0.6.0's flat methods: deprecated aliases of the resources, for one release", () => {
  it("notify answers the ack, ask/get/wait/cancel/ack act on the same message, and the old spellings still work", async () => {
    const agent = sdk();
    const ack = await agent.notify({ title: "Old-style notify" });
    expect(ack).toMatchObject({ id: expect.stringMatching(/^msg_/u), status: "delivered" });
    expect(await agent.get(ack.id)).toMatchObject({ id: ack.id, type: "notify" });

    const asked = await agent.ask.confirm({ title: "Old-style ask" });
    expect(agent.message(asked.id).id).toBe(asked.id);
    expect(await agent.cancel(asked.id)).toEqual({ id: asked.id, status: "cancelled" });
    const response = await agent.wait(asked.id);
    expect(response.resolution).toBe("cancelled");
    // The 0.6.0 snake_case body: `resolution_id` reaches the Hub as the §14.3 ack names it.
    const acked = await agent.ack(asked.id, { note: "seen", resolution_id: response.resolution_id });
    expect(acked).toMatchObject({
      type: "ack",
      in_reply_to: asked.id,
      note: "seen",
      resolution_id: response.resolution_id,
    });
  });
});

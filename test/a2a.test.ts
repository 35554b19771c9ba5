/**
 * The A2A gateway (docs/a2a.md) against a real web + worker pair, driven by `@a2a-js/sdk`'s own
 * client: the one Agent Card; a message becomes an ask (or a notify) in the account's inbox; the task
 * works until a person answers through /v1 and then completes with the answer, the attested actor
 * and the §6 Response as an artifact that an agent-side verifier accepts against the Hub's JWKS;
 * decline, cancel, expiry with and without a default; a stream sees each state; a push config gets
 * JWT-signed pushes that verify against the JWKS; another account's client sees nothing.
 */
// covers: lib/a2a/gateway.ts, lib/a2a/mapping.ts, lib/a2a/tasks.ts, lib/a2a/push.ts, lib/http/routes/a2a.ts
import {
  type Message,
  type Part,
  Role,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
  TaskState,
} from "@a2a-js/sdk";
import { type Client, ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { AgentVerifier } from "./support/agent-verify";
import { client } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { approveOrigin } from "./support/provision";
import type { Receiver } from "./support/receiver";
import { waitFor } from "./support/wait";

const A = "deploybot/dev-team";
let rx: Receiver;

const hub = useHubFixture({
  accounts: {
    acme: { agents: [A], humans: [{ handle: "alice", role: "owner" }] },
    other: { agents: [A] },
  },
  receivers: 1,
  setup: async (h) => {
    rx = h.receiver;
    await approveOrigin(A, "acme", rx.origin);
  },
  server: "pair",
  env: (h) => ({
    MA2H_DEV_CALLBACK_ALLOWLIST: h.receiver.origin,
    MA2H_DELIVERY_SWEEP_MS: "300",
    MA2H_PUSH_BASE_DELAY_MS: "300",
  }),
});
const acme = hub.account("acme");
const other = hub.account("other");

/** An SDK client of the Hub's card, its requests carrying `key` as the bearer token. */
async function a2a(key: string): Promise<Client> {
  const authed: typeof fetch = (input, init) =>
    fetch(input, {
      ...init,
      headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${key}` },
    });
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl: authed })],
  });
  return new ClientFactory(options).createFromUrl(hub.url);
}

const text = (value: string): Part => ({
  content: { $case: "text", value },
  metadata: undefined,
  filename: "",
  mediaType: "text/plain",
});
const data = (value: Record<string, unknown>): Part => ({
  content: { $case: "data", value },
  metadata: undefined,
  filename: "",
  mediaType: "application/json",
});

let n = 0;
function request(parts: Part[]): SendMessageRequest {
  const message: Message = {
    messageId: `m-${Date.now()}-${++n}`,
    contextId: "",
    taskId: "",
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  return { tenant: "", message, configuration: undefined, metadata: undefined };
}

async function send(c: Client, parts: Part[]): Promise<Task> {
  const result = await c.sendMessage(request(parts));
  if (!("status" in result)) throw new Error("SendMessage answered a message, not a task");
  return result;
}

const resolve = async (id: string, body: Record<string, unknown>) => {
  const res = await client(hub.url, acme.tokens.alice).post(`/v1/messages/${id}/resolve`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};

/** The outcome data part of a final task, and the artifact's body. */
function outcome(task: Task): Record<string, any> {
  const part = task.status?.message?.parts[0]?.content;
  if (part?.$case !== "data") throw new Error("no outcome data part");
  return part.value;
}
function artifactBody(task: Task): Record<string, any> {
  const part = task.artifacts.find((a) => a.artifactId === "ma2h-response")?.parts[0]?.content;
  if (part?.$case !== "data") throw new Error("no ma2h-response artifact");
  return part.value;
}

async function finalTask(c: Client, id: string): Promise<Task> {
  return waitFor(
    async () => {
      const t = await c.getTask({ tenant: "", id });
      const s = t.status?.state;
      return s !== TaskState.TASK_STATE_WORKING ? t : undefined;
    },
    { what: `task ${id} final`, timeout: 20_000, every: 200 },
  );
}

/** What a rejected call threw, as the fields an A2A client reads. */
async function failure(p: Promise<unknown>): Promise<{ name: string; code: unknown; message: string }> {
  try {
    await p;
  } catch (err) {
    const e = err as { name: string; envelopeCode?: number; message: string };
    return { name: e.name, code: e.envelopeCode, message: e.message };
  }
  throw new Error("the call succeeded");
}

describe("the Agent Card and the gate", () => {
  it("serves one card for the Hub, public, naming /a2a and bearer auth; /a2a without an agent key is 401", async () => {
    const anon = await fetch(`${hub.url}/.well-known/agent-card.json`);
    expect(anon.status).toBe(200);
    const card = await anon.json();
    const withKey = await (
      await fetch(`${hub.url}/.well-known/agent-card.json`, { headers: { authorization: `Bearer ${other.keys[A]}` } })
    ).json();
    expect(withKey).toEqual(card); // never per account
    expect(card.supportedInterfaces).toEqual([
      expect.objectContaining({ url: `${hub.url}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }),
    ]);
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true });
    expect(JSON.stringify(card)).not.toContain("acme");

    const rpc = { jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "msg_x" } };
    const headers = { "content-type": "application/json", "a2a-version": "1.0" };
    const auths: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${acme.tokens.alice}` },
      { authorization: "Bearer nope" },
    ];
    for (const auth of auths) {
      const res = await fetch(`${hub.url}/a2a`, {
        method: "POST",
        headers: { ...headers, ...auth },
        body: JSON.stringify(rpc),
      });
      expect(res.status).toBe(401);
      expect((await res.json()).error.code).toBe("unauthenticated");
    }
    const get = await fetch(`${hub.url}/a2a`, { headers: { authorization: `Bearer ${acme.keys[A]}` } });
    expect(get.status).toBe(404);
    expect(await get.json()).toEqual({ error: { code: "not_found", message: "no such endpoint" } });
  });
});

describe("a message becomes an ask; the task follows it", () => {
  it("send → working → a person approves → completed with the answer, the actor and a Response that verifies", async () => {
    const c = await a2a(acme.keys[A] as string);
    const task = await send(c, [text("Deploy build 4812 to production?\nAll checks are green.")]);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(task.artifacts).toEqual([]);

    // The MA2H side: a confirm ask of the agent, in the account's inbox.
    const msg = await client(hub.url, acme.keys[A]).get(`/v1/messages/${task.id}`);
    expect(msg.status).toBe(200);
    expect(msg.body).toMatchObject({
      type: "ask",
      status: "open",
      title: "Deploy build 4812 to production?",
      body: "Deploy build 4812 to production?\nAll checks are green.",
      request: { mode: "confirm" },
      agent: { id: A, run_id: task.contextId },
    });

    await resolve(task.id, { resolution: "answered", value: "approve" });
    const done = await c.getTask({ tenant: "", id: task.id });
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(outcome(done)).toMatchObject({
      resolution: "answered",
      value: "approve",
      actor: "human:alice",
      defaulted: false,
    });

    const art = artifactBody(done);
    expect(art.response).toMatchObject({
      in_reply_to: task.id,
      resolution: "answered",
      response: { value: "approve" },
    });
    expect(art.signed_for).toBe(`${hub.url}/a2a`);
    const verifier = new AgentVerifier({ callbackUrl: art.signed_for, jwksUrl: `${hub.url}/.well-known/ma2h-keys` });
    const verdict = await verifier.verify({ "ma2h-signature": art.ma2h_signature }, JSON.stringify(art.response));
    expect(verdict).toMatchObject({ ok: true, alg: "ed25519" });
    // A tampered answer does not verify.
    const forged = { ...art.response, response: { ...art.response.response, value: "deny" } };
    expect(
      await new AgentVerifier({ callbackUrl: art.signed_for, jwksUrl: `${hub.url}/.well-known/ma2h-keys` }).verify(
        { "ma2h-signature": art.ma2h_signature },
        JSON.stringify(forged),
      ),
    ).toMatchObject({ ok: false, reason: "bad_signature" });

    // The same message id again is the same task (its idempotency key).
    const retry = request([text("Restart the workers?")]);
    const firstTry = await c.sendMessage(retry);
    const secondTry = await c.sendMessage(retry);
    expect((firstTry as Task).id).toBe((secondTry as Task).id);
    const changed = { ...retry, message: { ...(retry.message as Message), parts: [text("Restart all the workers?")] } };
    const conflict = await failure(c.sendMessage(changed));
    expect(conflict.code).toBe(-32602);
    expect(conflict.message).toMatch(/^idempotency_conflict: /);
  });

  it("select and input asks from the ma2h data part; decline → rejected; a notify completes at once", async () => {
    const c = await a2a(acme.keys[A] as string);
    const select = await send(c, [
      text("Which region?"),
      data({
        ma2h: {
          mode: "select",
          options: [
            { value: "eu", label: "EU" },
            { value: "us", label: "US" },
          ],
        },
      }),
      data({ build: 4812 }),
    ]);
    const sel = await client(hub.url, acme.keys[A]).get(`/v1/messages/${select.id}`);
    expect(sel.body).toMatchObject({
      request: { mode: "select", options: [{ value: "eu" }, { value: "us" }] },
      context: [{ kind: "data", data: { build: 4812 } }],
    });
    await resolve(select.id, { resolution: "declined", comment: "not today" });
    const rejected = await c.getTask({ tenant: "", id: select.id });
    expect(rejected.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(outcome(rejected)).toMatchObject({ resolution: "declined", actor: "human:alice", comment: "not today" });

    const input = await send(c, [
      text("Why roll back?"),
      data({
        ma2h: {
          mode: "input",
          schema: { type: "object", properties: { reason: { type: "string" } }, required: ["reason"] },
        },
      }),
    ]);
    await resolve(input.id, { resolution: "answered", value: { reason: "latency" } });
    const answered = await c.getTask({ tenant: "", id: input.id });
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(outcome(answered).value).toEqual({ reason: "latency" });

    const note = await send(c, [text("Nightly digest sent."), data({ ma2h: { type: "notify" } })]);
    expect(note.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await client(hub.url, acme.keys[A]).get(`/v1/messages/${note.id}`)).body).toMatchObject({
      type: "notify",
      status: "delivered",
    });

    const bad = await failure(send(c, [text("x"), data({ ma2h: { mode: "vote" } })]));
    expect(bad.code).toBe(-32602);
  });

  it("CancelTask is the §8.4 cancel: canceled, and a final task is not cancelable", async () => {
    const c = await a2a(acme.keys[A] as string);
    const task = await send(c, [text("Rotate the signing key?")]);
    const cancelled = await c.cancelTask({ tenant: "", id: task.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(outcome(cancelled)).toMatchObject({ resolution: "cancelled", actor: `agent:${A}` });
    expect((await client(hub.url, acme.keys[A]).get(`/v1/messages/${task.id}`)).body.status).toBe("cancelled");
    const again = await failure(c.cancelTask({ tenant: "", id: task.id, metadata: undefined }));
    expect(again.code).toBe(-32002);
  });

  it("expiry: with a default → completed, defaulted, system:default_on_expire; without → failed", async () => {
    const c = await a2a(acme.keys[A] as string);
    const soon = () => new Date(Date.now() + 2500).toISOString();
    const withDefault = await send(c, [
      text("Ship it?"),
      data({
        ma2h: {
          mode: "select",
          options: [
            { value: "ship", label: "Ship" },
            { value: "hold", label: "Hold" },
          ],
          default_on_expire: "hold",
          expires_at: soon(),
        },
      }),
    ]);
    const without = await send(c, [text("Ship it too?"), data({ ma2h: { mode: "confirm", expires_at: soon() } })]);
    const defaulted = await finalTask(c, withDefault.id);
    expect(defaulted.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(outcome(defaulted)).toMatchObject({
      resolution: "expired",
      defaulted: true,
      value: "hold",
      actor: "system:default_on_expire",
    });
    expect(artifactBody(defaulted).response).toMatchObject({ resolution: "expired", defaulted: true });
    const failed = await finalTask(c, without.id);
    expect(failed.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(outcome(failed)).toMatchObject({ resolution: "expired", defaulted: false });
  });
});

describe("streams and pushes", () => {
  it("SendStreamingMessage and SubscribeToTask see working, then the Response and the final state", async () => {
    const c = await a2a(acme.keys[A] as string);
    const events: StreamResponse[] = [];
    const stream = c.sendMessageStream(request([text("Merge PR 77?")]));
    const first = await stream.next();
    events.push(first.value as StreamResponse);
    const payload = events[0]?.payload;
    if (payload?.$case !== "task") throw new Error("the stream did not start with the task");
    expect(payload.value.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const id = payload.value.id;

    // A second client subscribes to the same task meanwhile.
    const sub = (async () => {
      const seen: StreamResponse[] = [];
      for await (const e of c.resubscribeTask({ tenant: "", id })) seen.push(e);
      return seen;
    })();
    const rest = (async () => {
      for await (const e of { [Symbol.asyncIterator]: () => stream }) events.push(e);
    })();
    await new Promise((r) => setTimeout(r, 300));
    await resolve(id, { resolution: "answered", value: "approve" });
    await rest;
    const subscribed = await sub;
    for (const seen of [events, subscribed]) {
      expect(seen.map((e) => e.payload?.$case)).toEqual(["task", "artifactUpdate", "statusUpdate"]);
      const last = seen[2]?.payload;
      if (last?.$case !== "statusUpdate") throw new Error("no final status");
      expect(last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const art = seen[1]?.payload;
      if (art?.$case !== "artifactUpdate") throw new Error("no artifact");
      expect(art.value.artifact?.artifactId).toBe("ma2h-response");
    }
    // A subscription to a final task: the task, and the stream ends.
    const late: StreamResponse[] = [];
    for await (const e of c.resubscribeTask({ tenant: "", id })) late.push(e);
    expect(late.map((e) => e.payload?.$case)).toEqual(["task"]);
  });

  it("a push config gets the working and the final task, each with a JWT that verifies against the JWKS", async () => {
    const c = await a2a(acme.keys[A] as string);
    const task = await send(c, [text("Restart the cache?")]);
    const url = `${rx.origin}/a2a-push/1`;
    const saved = await c.createTaskPushNotificationConfig({
      tenant: "",
      id: "cfg-1",
      taskId: task.id,
      url,
      token: "client-token",
      authentication: undefined,
    });
    expect(saved).toMatchObject({ id: "cfg-1", taskId: task.id, url });
    expect(
      (await c.listTaskPushNotificationConfig({ tenant: "", taskId: task.id, pageSize: 0, pageToken: "" })).configs,
    ).toHaveLength(1);

    const [working] = await rx.waitFor("/a2a-push/1", 1, 15_000);
    await resolve(task.id, { resolution: "answered", value: "approve" });
    const pushes = await rx.waitFor("/a2a-push/1", 2, 15_000);
    const jwks = createRemoteJWKSet(new URL(`${hub.url}/.well-known/ma2h-keys`));
    const me = await client(hub.url, acme.keys[A]).get("/v1/agents/me");
    const states: string[] = [];
    for (const p of [working, pushes[1]]) {
      if (!p) throw new Error("missing push");
      expect(p.headers["content-type"]).toBe("application/a2a+json");
      expect(p.headers["x-a2a-notification-token"]).toBe("client-token");
      const jwt = String(p.headers.authorization).replace(/^Bearer /, "");
      const { payload } = await jwtVerify(jwt, jwks, { audience: url, issuer: hub.url });
      expect(decodeProtectedHeader(jwt).kid).toBe(me.body.push_signing.key_id);
      expect(payload).toMatchObject({ task_id: task.id });
      expect(payload.request_body_sha256).toBe(createHash("sha256").update(p.body).digest("hex"));
      states.push(JSON.parse(p.body).task.status.state);
    }
    expect(states).toEqual(["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"]);
    const final = JSON.parse(pushes[1]?.body as string).task;
    expect(final.artifacts[0].artifactId).toBe("ma2h-response");

    // A 503 is retried on the push schedule.
    rx.script("/a2a-push/2", [503]);
    const second = await send(c, [text("Restart the queue?")]);
    await c.createTaskPushNotificationConfig({
      tenant: "",
      id: "",
      taskId: second.id,
      url: `${rx.origin}/a2a-push/2`,
      token: "",
      authentication: undefined,
    });
    const retried = await rx.waitFor("/a2a-push/2", 2, 15_000);
    expect(retried.map((p) => JSON.parse(p.body).task.status.state)).toEqual([
      "TASK_STATE_WORKING",
      "TASK_STATE_WORKING",
    ]);
    expect(retried[1]?.headers["x-a2a-notification-token"]).toBeUndefined();

    // A config given with the message: pushed like any other; refused before anything is submitted.
    const withConfig = (url: string): SendMessageRequest => ({
      ...request([text("Scale the web tier?")]),
      configuration: {
        acceptedOutputModes: [],
        taskPushNotificationConfig: { tenant: "", id: "", taskId: "", url, token: "", authentication: undefined },
        historyLength: undefined,
        returnImmediately: true,
      },
    });
    const sentWith = (await c.sendMessage(withConfig(`${rx.origin}/a2a-push/3`))) as Task;
    const [third] = await rx.waitFor("/a2a-push/3", 1, 15_000);
    expect(JSON.parse(third?.body as string).task.id).toBe(sentWith.id);
    const messages = await db().message.count();
    const refusedSend = await failure(c.sendMessage(withConfig("https://elsewhere.example/hook")));
    expect(refusedSend.code).toBe(-32602);
    expect(await db().message.count()).toBe(messages);

    // A URL outside the agent's approved callback bindings is refused, like a §8.3 callback.
    const refused = await failure(
      c.createTaskPushNotificationConfig({
        tenant: "",
        id: "cfg-2",
        taskId: task.id,
        url: "https://elsewhere.example/hook",
        token: "",
        authentication: undefined,
      }),
    );
    expect(refused.code).toBe(-32602);
    expect(refused.message).toContain("not an approved callback binding");
  });
});

describe("isolation", () => {
  it("another account's client reads, cancels, follows and configures nothing: foreign = unknown", async () => {
    const mine = await a2a(acme.keys[A] as string);
    const theirs = await a2a(other.keys[A] as string);
    const task = await send(mine, [text("Drop the staging database?")]);
    const unknown = "msg_0000000000000000000000000a";
    const same = async (call: (id: string) => Promise<unknown>) => {
      const foreign = await failure(call(task.id));
      const missing = await failure(call(unknown));
      expect(foreign.code).toBe(-32001);
      expect({ ...foreign, message: foreign.message.replace(task.id, "ID") }).toEqual({
        ...missing,
        message: missing.message.replace(unknown, "ID"),
      });
    };
    await same((id) => theirs.getTask({ tenant: "", id }));
    await same((id) => theirs.cancelTask({ tenant: "", id, metadata: undefined }));
    await same(async (id) => {
      for await (const _ of theirs.resubscribeTask({ tenant: "", id })) break;
    });
    await same((id) => theirs.getTaskPushNotificationConfig({ tenant: "", taskId: id, id: "cfg-1" }));
    // Still open and untouched for its owner.
    expect((await mine.getTask({ tenant: "", id: task.id })).status?.state).toBe(TaskState.TASK_STATE_WORKING);
  });
});

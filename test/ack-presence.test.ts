/**
 * dp-010 on the running Hub (web + worker, real PostgreSQL, a loopback push receiver): the §14
 * response-leg ack (submitter-bound, refused before delivery, first ack wins, attested `by`,
 * `resolution_id` checked), the §14.2 response track (`delivered-to-agent` stamped by the
 * submitter's GET or a 2xx push, `acknowledged`, absent on open messages and notifies, `response`
 * byte-stable, retention's `expired` never after delivery) and §15 presence (derived from the
 * agent's own GETs only, online → offline by the window, owner-only, `unknown` indistinguishable,
 * 403 for agent credentials, `%2F` and a literal `/`). Bodies are checked against the official
 * schemas.
 */
// covers: lib/messages/ack.ts, lib/http/routes/message-verbs.ts, lib/messages/delivery-track.ts, lib/presence/, lib/http/routes/agents.ts, lib/inbox/response-track.ts
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ResponseTrack } from "../app/inbox/_components/response-track";
import { itemTrackFor, waitingForRows, type ItemTrack } from "../lib/inbox/response-track";
import { db } from "../lib/db";
import { purgeExpiredRetention } from "../lib/messages/retention";
import { ackSchema } from "@ma2h/protocol/ack";
import { presenceSchema } from "@ma2h/protocol/presence";
import { HUB_VERSION } from "@ma2h/protocol/versions";
import { addUser } from "../lib/principals/users";
import { createWebSession, SESSION_COOKIE_NAMES } from "../lib/principals/web-sessions";
import { client } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { approveOrigin, envelope, type Provisioned } from "./support/provision";
import { resolveAs, submitPush, waitForDelivery } from "./support/push-kit";
import type { Receiver } from "./support/receiver";
import { validateOfficial } from "./support/spec";
import { staysFalse, waitFor } from "./support/wait";

const W = 2; // MA2H_PRESENCE_FRESHNESS_SECONDS for this Hub
const A = "deploybot/dev-team";
const B = "linter/dev-team";
const P = "nightly/ops"; // presence subject: only this test's GETs touch it
const Q = "idle/ops"; // never polls
let rx: Receiver;
let carolToken: string;
const hub = useHubFixture({
  accounts: {
    acme: {
      agents: [A, B, P, Q],
      humans: [
        { handle: "alice", role: "owner" },
        { handle: "vic", role: "viewer" },
      ],
    },
    globex: { agents: [A, "other/bot"], humans: [{ handle: "bob", role: "owner" }] },
  },
  receivers: 1,
  setup: async (h) => {
    // carol holds seats in both accounts: owning = any account where she has a seat.
    await addUser("carol@both.test", "globex", "carol", "member");
    await addUser("carol@both.test", "acme", "carol", "viewer");
    const { createToken } = await import("../lib/principals/tokens");
    carolToken = (await createToken("carol@both.test")).token;
    rx = h.receiver;
    await approveOrigin(A, "acme", rx.origin);
  },
  server: "pair",
  env: (h) => ({
    MA2H_DEV_CALLBACK_ALLOWLIST: h.receiver.origin,
    MA2H_PUSH_BASE_DELAY_MS: "500",
    MA2H_PRESENCE_FRESHNESS_SECONDS: String(W),
  }),
});
const acme = hub.account("acme");
const globex = hub.account("globex");

const agent = (id: string, account: Provisioned = acme) => client(hub.web.url, account.keys[id]);
const human = (handle: string, account: Provisioned = acme) => client(hub.web.url, account.tokens[handle]);
const resolve = (id: string, body: Record<string, unknown>) =>
  resolveAs(hub.web.url, acme.tokens.alice as string, id, body);

async function submit(type: "ask" | "task" | "notify", over: Record<string, unknown> = {}, id = A): Promise<string> {
  const res = await agent(id).post("/v1/messages", envelope(type, id, over));
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.id as string;
}

/** The raw GET body text, to compare the embedded `response` byte for byte. */
async function rawGet(id: string, as = A): Promise<{ status: number; text: string; body: Record<string, any> }> {
  const res = await fetch(`${hub.web.url}/v1/messages/${id}`, {
    headers: { authorization: `Bearer ${acme.keys[as]}` },
  });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) };
}

/** The `"response":{…}` member exactly as serialized (the Response is followed by `delivery` or the end). */
function responseBytes(text: string): string {
  const start = text.indexOf('"response":{"ma2h_version"');
  const end = text.indexOf(',"delivery":');
  expect(start).toBeGreaterThan(0);
  return text.slice(start, end === -1 ? text.length - 1 : end);
}

const audit = (messageId: string, event: string) =>
  db().auditEvent.findMany({ where: { messageId, event }, orderBy: { id: "asc" } });

/**
 * `ma2h-hub message show <args> --json`, the operator's view, parsed (its error body too). Run
 * asynchronously: a synchronous run holds this process's event loop, past the Hub's 5 s keep-alive
 * on a loaded box, and the next request then goes out on a socket the Hub has closed.
 */
async function show(args: string[]) {
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["bin/ma2h-hub.js", "message", "show", ...args, "--json"],
      {
        cwd: fileURLToPath(new URL("..", import.meta.url)),
        env: { ...process.env, DATABASE_URL: hub.databaseUrl },
      },
    );
    return JSON.parse(stdout);
  } catch (err) {
    return JSON.parse((err as { stdout: string }).stdout);
  }
}

describe("§14.3 response-leg ack: who and when", () => {
  it("an open ask, an open task and a notify are 409 not_acknowledgeable; no delivery object on them", async () => {
    const ask = await submit("ask");
    const task = await submit("task");
    const notify = await submit("notify");
    for (const id of [ask, task, notify]) {
      const res = await agent(A).post(`/v1/messages/${id}/ack`, { note: "early" });
      expect(res.status, id).toBe(409);
      expect(res.body.error.code).toBe("not_acknowledgeable");
      const got = await agent(A).get(`/v1/messages/${id}`);
      expect(got.status).toBe(200);
      expect(got.body).not.toHaveProperty("delivery");
      expect(validateOfficial("get-message.schema.json", got.body)).toEqual([]);
    }
  });

  it("another agent of the account, another account's agent and an unknown id all get the same 404", async () => {
    const id = await submit("ask");
    await resolve(id, { resolution: "answered", value: "ship" });
    expect((await agent(A).get(`/v1/messages/${id}`)).status).toBe(200); // delivered to A
    const sameAccount = await agent(B).post(`/v1/messages/${id}/ack`, {});
    const otherAccount = await agent(A, globex).post(`/v1/messages/${id}/ack`, {});
    const unknown = await agent(A).post(`/v1/messages/msg_01UNKNOWNUNKNOWNUNKNOWN/ack`, {});
    for (const res of [sameAccount, otherAccount, unknown]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual(unknown.body);
    }
    expect(unknown.body.error.code).toBe("not_found");
    // An operator token is not an agent credential.
    expect((await human("alice").post(`/v1/messages/${id}/ack`, {})).status).toBe(401);
    // Nothing was acknowledged by the refused callers.
    expect((await agent(A).get(`/v1/messages/${id}`)).body.delivery.state).toBe("delivered-to-agent");
  });

  it("resolved but not yet delivered: 409, then the submitter's GET delivers it and the ack is 200", async () => {
    const id = await submit("ask");
    const before = Date.now();
    await resolve(id, { resolution: "answered", value: "ship", comment: "go" });
    const early = await agent(A).post(`/v1/messages/${id}/ack`, { note: "too soon" });
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe("not_acknowledgeable");
    expect((await db().resolution.findUniqueOrThrow({ where: { messageId: id } })).deliveredToAgentAt).toBeNull();

    const first = await rawGet(id);
    expect(first.status).toBe(200);
    expect(validateOfficial("get-message.schema.json", first.body)).toEqual([]);
    expect(first.body.delivery).toEqual({ state: "delivered-to-agent", delivered_at: expect.any(String) });
    expect(Date.parse(first.body.delivery.delivered_at)).toBeGreaterThanOrEqual(before - 1000);
    const stamped = await audit(id, "response.delivered_to_agent");
    expect(stamped).toHaveLength(1);
    expect(stamped[0]).toMatchObject({
      actor: `agent:${A}`,
      detail: { via: "pull", resolution_id: first.body.response.resolution_id },
    });

    const acked = await agent(A).post(`/v1/messages/${id}/ack`, {
      note: "got your Ship it — resuming",
      by: "human:mallory",
      acked_at: "2000-01-01T00:00:00Z",
      type: "nope",
    });
    expect(acked.status, JSON.stringify(acked.body)).toBe(200);
    expect(validateOfficial("ack.schema.json", acked.body)).toEqual([]);
    expect(ackSchema.safeParse(acked.body).success).toBe(true); // and our mirror agrees
    expect(acked.body).toEqual({
      ma2h_version: "0.5",
      type: "ack",
      in_reply_to: id,
      by: `agent:${A}`, // attested; the body's `by` is ignored
      acked_at: expect.any(String),
      note: "got your Ship it — resuming",
    });
    expect(acked.body.acked_at).not.toBe("2000-01-01T00:00:00Z");
    expect(Math.abs(Date.parse(acked.body.acked_at) - Date.now())).toBeLessThan(10_000);
    expect(await audit(id, "response.acknowledged")).toHaveLength(1);
  });
});

describe("§14.1 first ack wins; the track on the GET", () => {
  it("a repeat returns the first ack unchanged; the GET carries it; the response stays byte-stable", async () => {
    const id = await submit("ask");
    await resolve(id, { resolution: "answered", value: "hold", comment: "not today ✓" });
    const g1 = await rawGet(id);
    const resolutionId = g1.body.response.resolution_id as string;

    const a = await agent(A).post(`/v1/messages/${id}/ack`, { note: "A", resolution_id: resolutionId });
    expect(a.status).toBe(200);
    expect(a.body.resolution_id).toBe(resolutionId);
    const b = await agent(A).post(`/v1/messages/${id}/ack`, { note: "B" });
    expect(b.status).toBe(200);
    expect(b.body).toEqual(a.body);
    const empty = await fetch(`${hub.web.url}/v1/messages/${id}/ack`, {
      method: "POST",
      headers: { authorization: `Bearer ${acme.keys[A]}` },
    });
    expect(empty.status).toBe(200);
    expect(await empty.json()).toEqual(a.body);
    expect(await audit(id, "response.acknowledged")).toHaveLength(1);

    const g2 = await rawGet(id);
    const g3 = await rawGet(id);
    expect(validateOfficial("get-message.schema.json", g2.body)).toEqual([]);
    expect(g2.body.delivery).toEqual({
      state: "acknowledged",
      delivered_at: g1.body.delivery.delivered_at, // the first stamp stays
      acknowledged_at: a.body.acked_at,
      ack: a.body,
    });
    expect(g3.text).toBe(g2.text);
    // `delivery` advanced, the embedded Response did not move by a byte.
    expect(responseBytes(g2.text)).toBe(responseBytes(g1.text));
    expect(g2.body.response).toEqual(g1.body.response);
  });

  it("resolution_id: a mismatch is 422 invalid_field and records nothing; a bad note is 422", async () => {
    const id = await submit("ask");
    await resolve(id, { resolution: "declined" });
    await rawGet(id);
    const wrong = await agent(A).post(`/v1/messages/${id}/ack`, { note: "x", resolution_id: "res_01NOTTHEONE" });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.code).toBe("invalid_field");
    const long = await agent(A).post(`/v1/messages/${id}/ack`, { note: "n".repeat(2001) });
    expect(long.status).toBe(422);
    const typed = await agent(A).post(`/v1/messages/${id}/ack`, { note: 5 });
    expect(typed.status).toBe(422);
    const notJson = await agent(A).post(`/v1/messages/${id}/ack`, "{not json", { "content-type": "application/json" });
    expect(notJson.status).toBe(400);
    expect((await agent(A).get(`/v1/messages/${id}`)).body.delivery.state).toBe("delivered-to-agent");
    // Exactly the cap is accepted (code points, not UTF-16 units).
    const ok = await agent(A).post(`/v1/messages/${id}/ack`, { note: "😀".repeat(2000) });
    expect(ok.status).toBe(200);
    expect([...ok.body.note]).toHaveLength(2000);
  });

  it("a note is stored as sent (raw HTML included) and never interpreted by the Hub", async () => {
    const id = await submit("task");
    await resolve(id, { resolution: "dismissed" }); // a task with no `response` at all
    await rawGet(id);
    const note = "<img src=x onerror=alert(1)> **done**";
    const res = await agent(A).post(`/v1/messages/${id}/ack`, { note });
    expect(res.status).toBe(200);
    expect(res.body.note).toBe(note);
    expect((await agent(A).get(`/v1/messages/${id}`)).body.delivery.ack.note).toBe(note);
  });

  it("the delivery stamp and the ack each NOTIFY the inbox once, so the answering person's page refreshes", async () => {
    const listener = new pg.Client({ connectionString: hub.databaseUrl });
    await listener.connect();
    const heard: string[] = [];
    listener.on("notification", (n) => {
      if (n.channel === "ma2h_inbox" && n.payload) heard.push(n.payload);
    });
    await listener.query("LISTEN ma2h_inbox");
    try {
      const id = await submit("ask");
      await resolve(id, { resolution: "answered", value: "ship" });
      const accountId = (await db().message.findUniqueOrThrow({ where: { id } })).accountId;
      const mine = () => heard.filter((p) => p === `${accountId}:${id}`).length;
      const settle = async (n: number) => {
        await waitFor(() => mine() >= n, { timeout: 2000, every: 25, what: `${n} inbox NOTIFYs` });
        await staysFalse(() => mine() > n, 200, "a further inbox NOTIFY", 25); // and nothing more arrives
      };
      await settle(2); // submit + resolve
      const base = mine();
      await rawGet(id);
      await rawGet(id); // a second GET stamps nothing
      await settle(base + 1);
      expect(mine()).toBe(base + 1);
      await agent(A).post(`/v1/messages/${id}/ack`, { note: "x" });
      await agent(A).post(`/v1/messages/${id}/ack`, { note: "y" }); // a repeat writes nothing
      await settle(base + 2);
      expect(mine()).toBe(base + 2);
    } finally {
      await listener.end();
    }
  });

  it("concurrent acks: exactly one wins, every caller gets the winner", async () => {
    const id = await submit("ask");
    await resolve(id, { resolution: "answered", value: "ship" });
    await rawGet(id);
    const all = await Promise.all(
      Array.from({ length: 12 }, (_, i) => agent(A).post(`/v1/messages/${id}/ack`, { note: `n${i}` })),
    );
    for (const r of all) expect(r.status).toBe(200);
    const winner = all[0]!.body;
    for (const r of all) expect(r.body).toEqual(winner);
    expect(await audit(id, "response.acknowledged")).toHaveLength(1);
  });

  it("a message at v0.4 acks at 0.4; below 0.4 the ack is the Hub's own version (0.6)", async () => {
    const v4 = await submit("ask", { ma2h_version: "0.4" });
    const v3 = await submit("ask", { ma2h_version: "0.3" });
    for (const id of [v4, v3]) {
      await resolve(id, { resolution: "answered", value: "ship" });
      const got = await rawGet(id);
      expect(got.body.delivery.state).toBe("delivered-to-agent");
    }
    expect((await agent(A).post(`/v1/messages/${v4}/ack`, {})).body.ma2h_version).toBe("0.4");
    const old = await agent(A).post(`/v1/messages/${v3}/ack`, {});
    expect(old.body.ma2h_version).toBe(HUB_VERSION);
    expect(HUB_VERSION).toBe("0.6");
    expect(validateOfficial("ack.schema.json", old.body)).toEqual([]);
    expect(ackSchema.safeParse(old.body).success).toBe(true);
  });
});

describe("§14.2 a 2xx push delivers the answer", () => {
  it("the push stamps delivered-to-agent (ack works before any GET); a failing push does not", async () => {
    const ok = await submitPush(hub.web.url, acme.keys[A] as string, A, `${rx.origin}/ack/ok`, null, { name: "ok" });
    rx.script("/ack/fail", [], 500);
    const failing = await submitPush(hub.web.url, acme.keys[A] as string, A, `${rx.origin}/ack/fail`, null, {
      name: "fail",
    });
    await resolve(ok.id, { resolution: "answered", value: "ship" });
    await resolve(failing.id, { resolution: "answered", value: "ship" });
    const delivered = await waitForDelivery(ok.id, (d) => d.status === "delivered");
    await rx.waitFor("/ack/fail", 1);

    const row = await db().resolution.findUniqueOrThrow({ where: { messageId: ok.id } });
    expect(row.deliveredToAgentAt?.getTime()).toBe(delivered.deliveredAt?.getTime());
    expect(await audit(ok.id, "response.delivered_to_agent")).toMatchObject([
      { actor: "system:push", detail: { via: "push" } },
    ]);
    const acked = await agent(A).post(`/v1/messages/${ok.id}/ack`, { note: "pushed" });
    expect(acked.status).toBe(200);

    const refused = await agent(A).post(`/v1/messages/${failing.id}/ack`, {});
    expect(refused.status).toBe(409);
    expect(
      (await db().resolution.findUniqueOrThrow({ where: { messageId: failing.id } })).deliveredToAgentAt,
    ).toBeNull();

    // The GET shows the push's stamp, not a later one of its own.
    const got = await rawGet(ok.id);
    expect(got.body.delivery).toMatchObject({
      state: "acknowledged",
      delivered_at: row.deliveredToAgentAt?.toISOString(),
    });
    expect(await audit(ok.id, "response.delivered_to_agent")).toHaveLength(1);
  });
});

describe("§15 presence", () => {
  const presencePath = (id: string, literal = false) => `/v1/agents/${literal ? id : encodeURIComponent(id)}/presence`;

  it("unknown before any GET; submit, cancel and resolve do not count; human activity does not count", async () => {
    const id = await submit("ask", {}, P);
    const other = await submit("ask", {}, P);
    await agent(P).post(`/v1/messages/${other}/cancel`);
    await agent(P).post(`/v1/messages/${id}/resolve`, { resolution: "answered", value: "ship" });
    await human("alice").post(`/v1/messages/${other}/resolve`, { resolution: "answered", value: "ship" }); // 409, still a human call
    await human("alice").get(presencePath(P));
    const res = await human("alice").get(presencePath(P));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ agent_id: P, state: "unknown", freshness_seconds: W, sessions: [] });
    expect(validateOfficial("presence.schema.json", res.body)).toEqual([]);
    expect(presenceSchema.safeParse(res.body).success).toBe(true);
    expect((await db().agent.findFirstOrThrow({ where: { agentId: P } })).lastSeenAt).toBeNull();
  });

  it("online after the agent's GET, offline after the window, online again after a long-poll", async () => {
    const id = await submit("ask", {}, P);
    expect((await agent(P).get(`/v1/messages/${id}`)).status).toBe(200);
    const online = await human("alice").get(presencePath(P));
    expect(online.body).toEqual({
      agent_id: P,
      state: "online",
      last_seen: expect.any(String),
      freshness_seconds: W,
      sessions: [],
    });
    expect(validateOfficial("presence.schema.json", online.body)).toEqual([]);
    expect(presenceSchema.safeParse(online.body).success).toBe(true);
    expect(Math.abs(Date.parse(online.body.last_seen) - Date.now())).toBeLessThan(5000);
    // The literal slash form answers the same.
    expect((await human("alice").get(presencePath(P, true))).body).toEqual(online.body);

    // Offline once more than the window has passed since last_seen, by the clock the Hub reads it with.
    const windowEnds = Date.parse(online.body.last_seen) + W * 1000;
    await waitFor(() => Date.now() > windowEnds, { every: 20, what: "the freshness window to pass" });
    const offline = await human("alice").get(presencePath(P));
    expect(offline.body).toEqual({ ...online.body, state: "offline" });
    expect(validateOfficial("presence.schema.json", offline.body)).toEqual([]);
    expect(presenceSchema.safeParse(offline.body).success).toBe(true);

    expect((await agent(P).get(`/v1/messages/${id}?wait=1`)).status).toBe(200);
    const again = await human("alice").get(presencePath(P));
    expect(again.body.state).toBe("online");
    expect(Date.parse(again.body.last_seen)).toBeGreaterThan(Date.parse(online.body.last_seen));
  });

  it("a GET of someone else's message (404) is still the agent's own authenticated traffic", async () => {
    const foreign = await submit("ask");
    expect((await agent(Q).get(`/v1/messages/${foreign}`)).status).toBe(404);
    expect((await human("alice").get(presencePath(Q))).body.state).toBe("online");
  });

  it("another account's human and a nonexistent agent get the identical unknown body", async () => {
    const id = await submit("ask", {}, P);
    await agent(P).get(`/v1/messages/${id}`);
    expect((await human("alice").get(presencePath(P))).body.state).toBe("online");
    const foreign = await human("bob", globex).get(presencePath(P));
    const nobody = await human("alice").get(presencePath("nobody/here"));
    const nobodyForBob = await human("bob", globex).get(presencePath("nobody/here"));
    expect(foreign.status).toBe(200);
    expect(foreign.body).toEqual({ agent_id: P, state: "unknown", freshness_seconds: W, sessions: [] });
    expect(nobody.body).toEqual({ agent_id: "nobody/here", state: "unknown", freshness_seconds: W, sessions: [] });
    expect(JSON.stringify(nobodyForBob.body)).toBe(JSON.stringify(nobody.body));
    expect(Object.keys(foreign.body)).toEqual(Object.keys(nobody.body));
    for (const b of [foreign.body, nobody.body]) {
      expect(validateOfficial("presence.schema.json", b)).toEqual([]);
      expect(presenceSchema.safeParse(b).success).toBe(true);
    }
  });

  it("a viewer of the owning account reads it; a person seated in several accounts names the account", async () => {
    const id = await submit("ask", {}, P);
    await agent(P).get(`/v1/messages/${id}`);
    expect((await human("vic").get(presencePath(P))).body.state).toBe("online");
    const carol = client(hub.web.url, carolToken);
    expect((await carol.get(`${presencePath(P)}?account=acme`)).body.state).toBe("online"); // acme seat (viewer)
    expect((await carol.get(`${presencePath("other/bot")}?account=globex`)).body.state).toBe("unknown"); // never seen
    // Seats in several accounts and no ?account=: a 400 naming it (test/presence-account.test.ts).
    expect((await carol.get(presencePath(P))).status).toBe(400);
  });

  it("the browser session cookie works like a PAT; no credential is 401", async () => {
    const id = await submit("ask", {}, P);
    await agent(P).get(`/v1/messages/${id}`);
    const alice = await db().user.findUniqueOrThrow({ where: { email: "alice@acme.test" } });
    const token = `sess-${Date.now()}-presence`;
    await createWebSession(alice.id, token, new Date(Date.now() + 3_600_000));
    const viaCookie = await fetch(`${hub.web.url}${presencePath(P)}`, {
      headers: { cookie: `${SESSION_COOKIE_NAMES[1]}=${token}` },
    });
    expect(viaCookie.status).toBe(200);
    expect((await viaCookie.json()).state).toBe("online");
    const none = await fetch(`${hub.web.url}${presencePath(P)}`);
    expect(none.status).toBe(401);
  });

  it("an agent credential is 403 not_authorized whatever id it asks for — its own, another, none", async () => {
    const bodies = [];
    for (const path of [presencePath(P), presencePath(P, true), presencePath(A), presencePath("nobody/here")]) {
      const res = await agent(P).get(path);
      expect(res.status, path).toBe(403);
      expect(res.body.error.code).toBe("not_authorized");
      bodies.push(JSON.stringify(res.body));
    }
    expect(new Set(bodies).size).toBe(1);
    // Other paths under /v1/agents are the §8.5 404.
    expect((await human("alice").get(`/v1/agents/${encodeURIComponent(P)}`)).status).toBe(404);
    expect((await human("alice").get(`/v1/agents/${encodeURIComponent(P)}/presence/x`)).status).toBe(404);
  });
});

describe("the inbox shows both tracks (§14.2, §15.4)", () => {
  const html = (track: ItemTrack) => renderToStaticMarkup(createElement(ResponseTrack, { track }));

  it("a pending ask: 'will see it next run' until the agent polls, then 'waiting now' (item and list)", async () => {
    const id = await submit("ask", {}, B);
    const before = await itemTrackFor(id);
    expect(before.response).toBeNull();
    expect(before.waiting).toMatchObject({ agent_id: B, state: "unknown", text: "will see it next run" });
    await agent(B).get(`/v1/messages/${id}`);
    const after = await itemTrackFor(id);
    expect(after.waiting).toMatchObject({ state: "online", text: "waiting now" });
    const rows = [
      { id, account: "acme", agentId: B, type: "ask", status: "open" },
      { id: "msg_x", account: "acme", agentId: B, type: "notify", status: "delivered" },
    ];
    expect(await waitingForRows(rows)).toEqual({ [id]: { state: "online", text: "waiting now" } });
    // The same agent id in another account is another agent: never seen there.
    expect(await waitingForRows([{ ...rows[0]!, account: "globex", agentId: A }])).toEqual({
      [id]: { state: "unknown", text: "will see it next run" },
    });
  });

  it("a resolved ask: not picked up → delivered → acknowledged with the note sanitized", async () => {
    const id = await submit("ask");
    await resolve(id, { resolution: "answered", value: "ship" });
    const pending = await itemTrackFor(id);
    expect(pending).toEqual({
      waiting: null,
      response: { state: "not-delivered", deliveredAt: null, acknowledgedAt: null, note: null, by: null },
    });
    expect(html(pending)).toContain("Not picked up by the agent yet");

    const got = await rawGet(id);
    const delivered = await itemTrackFor(id);
    expect(delivered.response).toMatchObject({
      state: "delivered-to-agent",
      deliveredAt: got.body.delivery.delivered_at,
      acknowledgedAt: null,
    });

    const note = "<img src=x onerror=alert(1)><script>alert(2)</script> **resuming** [docs](javascript:alert(3))";
    const ack = await agent(A).post(`/v1/messages/${id}/ack`, { note });
    const acked = await itemTrackFor(id);
    expect(acked.response).toEqual({
      state: "acknowledged",
      deliveredAt: got.body.delivery.delivered_at,
      acknowledgedAt: ack.body.acked_at,
      note,
      by: `agent:${A}`,
    });
    const out = html(acked);
    expect(out).toContain('data-state="acknowledged"');
    expect(out).toContain("<strong>resuming</strong>");
    for (const bad of ["<img", "<script", "onerror", "javascript:"]) expect(out).not.toContain(bad);
  });

  it("a notify has neither track", async () => {
    const id = await submit("notify");
    expect(await itemTrackFor(id)).toEqual({ response: null, waiting: null });
  });
});

// Last: retention here purges every terminal message of this database.
describe("§14.2 retention: expired never after delivered", () => {
  it("a GET racing the purge waits for its row lock and answers 410 — never a delivered body for a purged answer", async () => {
    const id = await submit("ask");
    await resolve(id, { resolution: "answered", value: "ship" });
    const purger = new pg.Client({ connectionString: hub.databaseUrl });
    await purger.connect();
    try {
      // What retention's transaction does: lock the undelivered resolution, tombstone, delete.
      await purger.query("BEGIN");
      const locked = await purger.query(
        "SELECT r.id FROM resolutions r WHERE r.message_id = $1 AND r.delivered_to_agent_at IS NULL FOR UPDATE OF r",
        [id],
      );
      expect(locked.rowCount).toBe(1);
      let answered = false;
      const racing = rawGet(id).then((r) => {
        answered = true;
        return r;
      });
      // The GET's stamp is seen waiting on a row lock in this database (the purge holds it).
      await waitFor(
        async () =>
          (
            await purger.query(
              "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
            )
          ).rowCount,
        { what: "the GET's stamp to wait on the purge's row lock" },
      );
      expect(answered).toBe(false); // the stamp is waiting for the purge
      await purger.query(
        "INSERT INTO message_tombstones (id, account_id, agent_row_id, purged_at) SELECT id, account_id, agent_row_id, now() FROM messages WHERE id = $1",
        [id],
      );
      await purger.query("DELETE FROM messages WHERE id = $1", [id]);
      await purger.query("COMMIT");
      const got = await racing;
      expect(got.status).toBe(410);
      expect(got.body.error.code).toBe("gone");
      expect(await audit(id, "response.delivered_to_agent")).toHaveLength(0);
    } finally {
      await purger.end();
    }
  });

  it("an undelivered v0.5 answer records response.delivery_expired; a delivered one and a v0.4 one do not", async () => {
    const undelivered = await submit("ask");
    const delivered = await submit("ask");
    const legacy = await submit("ask", { ma2h_version: "0.4" });
    for (const id of [undelivered, delivered, legacy]) await resolve(id, { resolution: "answered", value: "ship" });
    await rawGet(delivered);

    await purgeExpiredRetention(new Date(Date.now() + 400 * 86_400_000));
    expect(await audit(undelivered, "response.delivery_expired")).toMatchObject([{ actor: "system:retention" }]);
    expect(await audit(delivered, "response.delivery_expired")).toHaveLength(0);
    expect(await audit(legacy, "response.delivery_expired")).toHaveLength(0);
    for (const id of [undelivered, delivered, legacy]) expect(await audit(id, "message.purged")).toHaveLength(1);
    // Purged: the submitter reads 410, the ack too; nothing can stamp the track any more.
    expect((await agent(A).get(`/v1/messages/${undelivered}`)).status).toBe(410);
    expect((await agent(A).post(`/v1/messages/${undelivered}/ack`, {})).status).toBe(410);
    expect(await audit(undelivered, "response.delivered_to_agent")).toHaveLength(0);

    // The account's audit export (JSON Lines, as an owner downloads it) names the track's terminal.
    const alice = await db().user.findUniqueOrThrow({ where: { email: "alice@acme.test" } });
    const cookie = `purge-export-${Date.now()}`;
    await createWebSession(alice.id, cookie, new Date(Date.now() + 3_600_000));
    const exported = await fetch(`${hub.web.url}/admin/acme/audit/export?kind=response.delivery_expired`, {
      headers: { cookie: `${SESSION_COOKIE_NAMES[1]}=${cookie}` },
    });
    expect(exported.status).toBe(200);
    const lines = (await exported.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.message_id === undelivered)).toMatchObject([
      { event: "response.delivery_expired", actor: "system:retention", detail: { delivery_state: "expired" } },
    ]);
    expect(lines.filter((l) => l.message_id === delivered)).toHaveLength(0);

    // The operator's `ma2h-hub message show <id> --json` prints it from the tombstone.
    expect((await show([undelivered])).message).toMatchObject({
      id: undelivered,
      account: "acme",
      agent: A,
      type: "ask",
      status: "answered",
      purged: true,
      delivery_state: "expired",
      delivery_expired_at: expect.any(String),
    });
    expect((await show([delivered])).message).toMatchObject({
      purged: true,
      delivery_state: null,
      delivery_expired_at: null,
    });
  });

  it("ma2h-hub message show prints a live message's response track; an unknown id is not_found", async () => {
    const id = await submit("ask");
    expect((await show([id])).message).toMatchObject({ id, status: "open", delivery_state: null, purged: false });
    await resolve(id, { resolution: "answered", value: "ship" });
    expect((await show([id])).message).toMatchObject({
      status: "answered",
      actor: "human:alice",
      delivery_state: null,
    });
    expect((await rawGet(id)).status).toBe(200);
    expect((await show([id])).message).toMatchObject({
      delivery_state: "delivered-to-agent",
      delivered_at: expect.any(String),
    });
    expect((await agent(A).post(`/v1/messages/${id}/ack`, {})).status).toBe(200);
    expect((await show([id])).message).toMatchObject({
      delivery_state: "acknowledged",
      acknowledged_at: expect.any(String),
    });
    expect(await show(["msg_doesnotexist"])).toEqual({ error: { code: "not_found", message: "no such message" } });
  });
});

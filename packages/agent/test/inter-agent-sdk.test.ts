/**
 * @ma2h/agent on the inter-agent leg (v0.5) against the real Hub (web + worker): an addressed ask
 * from A's session to B through the SDK (the ack's `destination` on the handle), B's verified
 * session drain hands out the `message` entry under an explicit `acceptFrom` (§13.4), B resolves as
 * its session, A's session drain hands out the verified `response` entry, both ack by ack key; a
 * session-addressed directive comes through the same drain; a redelivery is deduplicated; an ask
 * from a sender outside `acceptFrom` is not handed out. Against
 * a fake Hub (node:http) the sender's duties: the §8.1 misroute detector (a 202 without
 * `destination` → MisrouteError, the ask cancelled, the notify not), the §8.0 feature detection, and
 * the addressee's refusals — a message entry signed for another session of ours (§13.4 v0.5), and a
 * tampered or injected entry (§9.8, shape). The `ma2h` command's `--to` (built dist).
 */
// covers: packages/agent/src/session-inbox.ts, packages/agent/src/client.ts, packages/agent/src/verify-entry.ts
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../lib/db";
import {
  CapabilityError,
  Ma2hClient,
  MemoryReplayStore,
  MisrouteError,
  SenderNotAcceptedError,
  type VerifiedEntry,
  VerificationError,
  verifyEntry,
} from "../src";
import { useHubFixture } from "../../../test/support/hub-fixture";
import { waitUntil } from "../../../test/support/wait";
import { errorLine, ma2h, tempDir } from "./cli-kit";

const A = "coordinator/fleet";
const B = "worker/fleet";
const C = "stranger/fleet";
const VISIBILITY_S = 2;
const hub = useHubFixture({
  server: "pair",
  accounts: { acme: { agents: [A, B, C], humans: [{ handle: "alice", role: "owner" }] } },
  env: { MA2H_INBOUND_VISIBILITY_TIMEOUT_SECONDS: String(VISIBILITY_S) },
});
const acme = hub.account("acme");

const sdk = (id: string, url = hub.url) =>
  new Ma2hClient({ url, apiKey: acme.keys[id] as string, agentId: id, retry: { baseDelayMs: 20 } });

/** Drains (or reads) until `ok` holds; a drain is a claim, so not more often than every 150 ms. */
const until = <T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 8000): Promise<T> =>
  waitUntil(read, ok, { timeout: ms, every: 150 });

/** A raw `GET /v1/inbox?session=` on the real Hub (the items exactly as the Hub signed them). */
async function rawDrain(id: string, session: string): Promise<Record<string, unknown>[]> {
  const res = await fetch(`${hub.url}/v1/inbox?session=${session}`, {
    headers: { authorization: `Bearer ${acme.keys[id]}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { messages: Record<string, unknown>[] }).messages;
}

beforeAll(async () => {
  await db().account.update({ where: { slug: "acme" }, data: { interAgentEnabled: true } });
});

describe("an addressed ask between two SDK clients (§4, §8.1, §8.7.1, §9.8, §13.4)", () => {
  it("A asks B; B drains the verified message entry, resolves; A drains the verified response; both ack", async () => {
    const a = sdk(A);
    const b = sdk(B);
    const sa = await a.sessions.register({ label: "coordinator run", ttlSeconds: 600 });
    const sb = await b.sessions.register({ label: "worker run" });
    expect(sa.id).toMatch(/^sess_/u);

    const handle = await a.messages.ask.confirm({
      title: "Run the migration?",
      to: b.address(),
      session: sa.id,
      state: { step: 4 },
      clientRef: "mine",
    });
    expect(handle.ack.status).toBe("open");
    expect(handle.destination?.state).toMatch(/^(online|offline|unknown)$/u);

    const rejected: unknown[] = [];
    const drained = await b.sessions.drain(sb.id, {
      acceptFrom: [a.address()],
      onRejected: (e) => rejected.push(e),
    });
    expect(rejected).toEqual([]);
    expect(drained).toHaveLength(1);
    const entry = drained[0] as Extract<VerifiedEntry, { kind: "message" }>;
    expect(entry.kind).toBe("message");
    expect(entry.message).toMatchObject({
      id: handle.id,
      type: "ask",
      from: `agent:${A}#${sa.id}`,
      to: `agent:${B}`,
      title: "Run the migration?",
    });
    expect(entry.message).not.toHaveProperty("state");
    expect(entry.message).not.toHaveProperty("client_ref");
    expect(entry.ackKey).toBe(handle.id);
    expect(await b.sessions.drain(sb.id, { acceptFrom: [a.address()] })).toEqual([]); // claimed

    const resolved = await b.messages.resolve(
      handle.id,
      { resolution: "answered", value: "approve" },
      { session: sb.id },
    );
    expect(resolved.status).toBe("answered");
    expect(await b.sessions.ack(sb.id, [entry])).toEqual({ acked: 1 });

    const got = await until(
      () => a.sessions.drain(sa.id, { acceptFrom: [] }),
      (items) => items.length > 0,
    );
    expect(got).toHaveLength(1);
    const answer = got[0] as Extract<VerifiedEntry, { kind: "response" }>;
    expect(answer.kind).toBe("response");
    expect(answer.response).toMatchObject({ in_reply_to: handle.id, resolution: "answered", state: { step: 4 } });
    expect(answer.response.response?.actor).toBe(`agent:${B}#${sb.id}`);
    expect(answer.ackKey).toBe(answer.response.resolution_id);
    expect(await a.sessions.ack(sa.id, [answer.ackKey])).toEqual({ acked: 1 });

    const read = await a.messages.get(handle.id);
    expect(read).toMatchObject({ status: "answered", mailbox: { state: "acknowledged" } });
    await a.sessions.close(sa.id);
    const closed = await b.sessions.close(sb.id);
    expect(closed.state).toBe("closed");
  });

  it("acceptFrom is required and applied to ask/task; a redelivery is not handed out twice", async () => {
    const b = sdk(B);
    const c = sdk(C);
    const sb = await b.sessions.register();
    const handle = await c.messages.task({
      title: "Rotate the keys",
      to: b.address(),
      action: { instructions: "rotate" },
    });
    const note = await c.messages.notify({ title: "FYI", to: b.address() });
    expect(note.ack.status).toBe("queued");
    expect(note.destination).toBeDefined();

    await expect(b.sessions.drain(sb.id, {} as never)).rejects.toThrow(TypeError);

    const rejected: unknown[] = [];
    const first = await b.sessions.drain(sb.id, {
      acceptFrom: [`agent:${A}`],
      onRejected: (e) => rejected.push(e),
    });
    // The notify asks nothing and is handed out; the task from C is not ours to act on.
    expect(first.map((e) => e.kind === "message" && e.message.id)).toEqual([note.id]);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toBeInstanceOf(SenderNotAcceptedError);
    expect(rejected[0]).toMatchObject({ from: `agent:${C}`, ackKey: handle.id });

    // After the visibility window both come again: the notify is a duplicate (not acked yet), the
    // task is handed out under a policy that accepts any same-account sender.
    // Drained until they come: both were claimed by one drain, so they come back together.
    const duplicates: VerifiedEntry[] = [];
    const second = await until(
      () =>
        b.sessions.drain(sb.id, {
          acceptFrom: "any-same-account",
          onDuplicate: (e) => duplicates.push(e),
        }),
      (items) => items.length > 0,
      VISIBILITY_S * 1000 + 8000,
    );
    expect(second.map((e) => e.kind === "message" && e.message.id)).toEqual([handle.id]);
    expect(duplicates.map((e) => e.ackKey)).toEqual([note.id]);
    expect(await b.sessions.ack(sb.id, [...second, note.id])).toEqual({ acked: 2 });
    await b.sessions.close(sb.id);
  });

  it("a directive addressed to the session comes through the same verified drain (§9.7, §13.2)", async () => {
    const b = sdk(B);
    const sb = await b.sessions.register();
    const authored = await hub
      .human("alice", "acme")
      .post("/v1/directives", { to: b.address(sb.id), title: "Pause deploys" });
    expect(authored.status, JSON.stringify(authored.body)).toBe(201);
    const items = await until(
      () => b.sessions.drain(sb.id, { acceptFrom: [] }),
      (got) => got.length > 0,
    );
    expect(items).toMatchObject([
      { kind: "directive", ackKey: authored.body.id, directive: { to: b.address(sb.id), title: "Pause deploys" } },
    ]);
    expect(await b.sessions.ack(sb.id, items, { note: "paused" })).toEqual({ acked: 1 });
    const read = await hub.human("alice", "acme").get(`/v1/directives/${authored.body.id}`);
    expect(read.body.delivery).toMatchObject({ state: "acknowledged", note: "paused" });
  });

  it("directivesFrom applies to the session drain's directives too (§13.5)", async () => {
    const b = sdk(B);
    const sb = await b.sessions.register();
    const authored = await hub
      .human("alice", "acme")
      .post("/v1/directives", { to: b.address(sb.id), title: "Purge the cache" });
    expect(authored.status, JSON.stringify(authored.body)).toBe(201);
    const rejected: unknown[] = [];
    const items = await until(
      () =>
        b.sessions.drain(sb.id, {
          acceptFrom: "any-same-account",
          directivesFrom: ["human:bob"],
          onRejected: (e) => rejected.push(e),
        }),
      () => rejected.length > 0,
    );
    expect(items).toEqual([]);
    expect(rejected[0]).toBeInstanceOf(SenderNotAcceptedError);
    expect(rejected[0]).toMatchObject({ from: "human:alice", ackKey: authored.body.id });
    const read = await hub.human("alice", "acme").get(`/v1/directives/${authored.body.id}`);
    expect(read.body.delivery.state).not.toBe("acknowledged");
    await b.sessions.close(sb.id);
  });

  it("a client holding a session names it as agent.session on its submits; closed, it does not; null opts out (§4.1)", async () => {
    const a = sdk(A);
    expect(a.session).toBeNull();
    const before = await a.messages.notify({ title: "before any session" });
    const s = await a.sessions.register();
    expect(a.session).toBe(s.id);
    const held = await a.messages.notify({ title: "from the held session" });
    const task = await a.messages.task({ title: "task from the held session", action: { instructions: "check" } });
    const optOut = await a.messages.notify({ title: "without it", session: null });
    await a.sessions.close(s.id);
    expect(a.session).toBeNull();
    const after = await a.messages.notify({ title: "after the close" });
    const sessionOf = async (id: string) => {
      const row = await db().message.findUniqueOrThrow({ where: { id }, select: { envelope: true } });
      return (JSON.parse(row.envelope) as { agent: { session?: string } }).agent.session;
    };
    expect(await sessionOf(before.id)).toBeUndefined();
    expect(await sessionOf(held.id)).toBe(s.id);
    expect(await sessionOf(task.id)).toBe(s.id);
    expect(await sessionOf(optOut.id)).toBeUndefined();
    expect(await sessionOf(after.id)).toBeUndefined();
  });

  it("a message entry signed for another session of ours is refused (§13.4 v0.5)", async () => {
    const a = sdk(A);
    const b = sdk(B);
    const old = await b.sessions.register();
    const current = await b.sessions.register();
    await a.messages.notify({ title: "for the old run", to: b.address(old.id) });
    const [item] = await until(
      () => rawDrain(B, old.id),
      (items) => items.length > 0,
    );
    expect((item?.message as { to?: string } | undefined)?.to).toBe(`agent:${B}#${old.id}`);
    const options = { agentId: B, hubUrl: hub.url, replayStore: new MemoryReplayStore() };
    // Refused by the current session (the addressee check comes before the jti is recorded)…
    await expect(verifyEntry(item, { ...options, session: current.id })).rejects.toMatchObject({
      name: "VerificationError",
      reason: "wrong_addressee",
    });
    // …and valid as delivered to the session it names.
    await expect(verifyEntry(item, { ...options, session: old.id })).resolves.toMatchObject({ kind: "message" });
  });
});

// ─── a fake Hub ────────────────────────────────────────────────────────────────────────────────

interface Fake {
  url: string;
  seen: string[];
  /** What `GET /v1/inbox` answers next (items), once. */
  inbox: unknown[];
  /** Overrides the capability document. */
  capability?: (doc: Record<string, unknown>) => Record<string, unknown>;
  server: Server;
}

/**
 * A pre-0.5-style Hub in front of the real one: `/.well-known/*` proxied (its origin rewritten, so
 * the keys are the real Hub's, fetched from here), a submit answered `202` WITHOUT `destination`,
 * cancel recorded, and the inbox answering whatever the test put in `inbox`.
 */
async function fakeHub(): Promise<Fake> {
  const fake = { seen: [] as string[], inbox: [] as unknown[] } as Fake;
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  fake.server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    fake.seen.push(`${req.method} ${path}`);
    if (req.method === "GET" && path.startsWith("/.well-known/")) {
      const text = (await (await fetch(hub.url + path)).text()).replaceAll(hub.url, fake.url);
      let doc = JSON.parse(text) as Record<string, unknown>;
      if (path === "/.well-known/ma2h" && fake.capability) doc = fake.capability(doc);
      return send(res, 200, doc);
    }
    if (req.method === "POST" && path === "/v1/messages") {
      for await (const _ of req); // drain the body
      return send(res, 202, { id: "msg_fake1", status: "open", poll_url: `${fake.url}/v1/messages/msg_fake1` });
    }
    const cancel = /^\/v1\/messages\/([^/]+)\/cancel$/u.exec(path);
    if (req.method === "POST" && cancel) return send(res, 200, { id: cancel[1], status: "cancelled" });
    if (req.method === "GET" && path === "/v1/inbox") {
      const messages = fake.inbox;
      fake.inbox = [];
      return send(res, 200, { messages });
    }
    return send(res, 404, { error: { code: "not_found", message: "fake" } });
  });
  await new Promise<void>((r) => fake.server.listen(0, "127.0.0.1", r));
  fake.url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
  return fake;
}

describe("the sender's duties against a fake Hub (§8.0, §8.1)", () => {
  let fake: Fake;
  beforeAll(async () => {
    fake = await fakeHub();
  });
  afterAll(() => new Promise<void>((r) => fake.server.close(() => r())));

  it("an addressed ask acked without destination: cancelled, then MisrouteError", async () => {
    fake.seen.length = 0;
    const a = sdk(A, fake.url);
    const err = await a.messages.ask.confirm({ title: "Deploy?", to: `agent:${B}` }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MisrouteError);
    expect(err).toMatchObject({ code: "misrouted", status: 202, cancelled: true, ack: { id: "msg_fake1" } });
    expect((err as Error).message).toMatch(/misrouted.*destination/u);
    expect(fake.seen).toContain("POST /v1/messages/msg_fake1/cancel");
  });

  it("an addressed notify: MisrouteError, nothing to cancel; an unaddressed submit is not checked", async () => {
    fake.seen.length = 0;
    const a = sdk(A, fake.url);
    await expect(a.messages.notify({ title: "FYI", to: `agent:${B}` })).rejects.toMatchObject({
      code: "misrouted",
      cancelled: false,
    });
    expect(fake.seen.filter((s) => s.endsWith("/cancel"))).toEqual([]);
    const plain = await a.messages.ask.confirm({ title: "For a person" });
    expect(plain.id).toBe("msg_fake1");
    expect(plain.destination).toBeUndefined();
  });

  it("feature detection: a Hub not offering inter_agent refuses `to` before any submit", async () => {
    fake.seen.length = 0;
    fake.capability = (doc) => ({ ...doc, inter_agent: { enabled: false } });
    try {
      const a = sdk(A, fake.url);
      await expect(a.messages.notify({ title: "FYI", to: `agent:${B}` })).rejects.toBeInstanceOf(CapabilityError);
      expect(fake.seen).toEqual(["GET /.well-known/ma2h"]);
    } finally {
      fake.capability = undefined;
    }
  });

  it("the drain refuses a tampered entry, an injected field, and an entry for another session", async () => {
    const a = sdk(A);
    const b = sdk(B);
    const old = await b.sessions.register();
    const current = await b.sessions.register();
    await a.messages.ask.confirm({ title: "Original title", to: b.address(current.id) });
    await a.messages.notify({ title: "for the old run", to: b.address(old.id) });
    const [forCurrent] = await until(
      () => rawDrain(B, current.id),
      (items) => items.length > 0,
    );
    const [forOld] = await until(
      () => rawDrain(B, old.id),
      (items) => items.length > 0,
    );
    const message = forCurrent?.message as Record<string, unknown>;
    fake.inbox = [
      { ...forCurrent, message: { ...message, title: "Drop the database" } },
      { ...forCurrent, message: { ...message, state: { injected: true } } },
      forOld,
    ];
    const rejected: VerificationError[] = [];
    const viaFake = sdk(B, fake.url);
    const items = await viaFake.sessions.drain(current.id, {
      acceptFrom: "any-same-account",
      onRejected: (e) => rejected.push(e as VerificationError),
    });
    expect(items).toEqual([]);
    expect(rejected.every((e) => e instanceof VerificationError)).toBe(true);
    expect(rejected.map((e) => e.reason)).toEqual(["signature_mismatch", "invalid_shape", "wrong_addressee"]);
    // The untouched entry verifies through the same fake (its keys are the Hub's).
    fake.inbox = [forCurrent];
    const ok = await viaFake.sessions.drain(current.id, { acceptFrom: [a.address()] });
    expect(ok.map((e) => e.kind)).toEqual(["message"]);
  });
});

describe("ma2h --to (the built command)", () => {
  const store = tempDir("inter-agent-cli");
  const env = (url: string) => ({ MA2H_URL: url, MA2H_API_KEY: acme.keys[A], MA2H_AGENT_ID: A, MA2H_STORE_DIR: store });

  it("notify --to prints the id and the destination snapshot", async () => {
    const run = await ma2h(["notify", "Build is green", "--to", `agent:${B}`], env(hub.url));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^msg_[0-9a-z]+\n$/u);
    expect(run.stderr).toMatch(new RegExp(`to agent:${B}: destination (online|offline|unknown)`, "u"));
  });

  it("a bad --to is a usage error; a misroute exits 4 with code misrouted", async () => {
    const bad = await ma2h(["notify", "x", "--to", "human:alice"], env(hub.url));
    expect(bad.code).toBe(2);
    const fake = await fakeHub();
    try {
      const run = await ma2h(["ask", "confirm", "Deploy?", "--to", `agent:${B}`], env(fake.url));
      expect(run.code).toBe(4);
      expect(errorLine(run).code).toBe("misrouted");
      expect(fake.seen).toContain("POST /v1/messages/msg_fake1/cancel");
    } finally {
      await new Promise<void>((r) => fake.server.close(() => r()));
    }
  });
});

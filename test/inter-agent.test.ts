/**
 * The inter-agent leg on a running Hub (`npm run hub`: web + worker on one test database),
 * proven from the outside: every entry a drain hands over is judged by the INDEPENDENT §9.8
 * verifier (test/support/entry-verify.ts — nothing of lib/) against the Hub's published ed25519
 * key, and every payload and read against the official v0.6 schemas (Ajv).
 *
 *  (a) one exchange end to end: A asks B; B's session drains a verified `message` entry (attested
 *      `from`, the strip rule); B resolves; A's session drains the verified `response` entry and
 *      acks it by resolution_id; A's §8.2 read walks the mailbox track queued → delivered →
 *      acknowledged and the response track to acknowledged (§6, §8.2, §8.7.1, §8.8, §14.2).
 *  (b) dp-020: first claim wins across five sessions, visibility-timeout rescue by a sibling,
 *      session-addressed isolation, session-less drains never see a v0.5 kind.
 *  (c) dp-022: bounce on session death (prior delivered / queued, one stamp on two surfaces), the
 *      system:undeliverable auto-resolution, exactly one receipt each, principal mail and
 *      response entries never bounce.
 *  (d) dp-023: destination validation without oracles (byte-identical 422s), the opt-in, the
 *      visibility collapse, the honest ack, the `#` sender, the idempotent replay from a new session.
 *  (e) dp-024: who may resolve an addressed message.
 *  (f) §3.1: a SIGKILL of the whole Hub mid-exchange loses nothing.
 *
 * Fixtures: accounts opted in (`accounts.inter_agent_enabled`) and sender allowlists
 * (`agents.senders_restricted`, `agents.allowed_senders`) are set directly in the database before
 * the Hub starts.
 */
// covers: lib/messages/addressing.ts, lib/mailbox/drain.ts, packages/protocol/src/entry-signing.ts, lib/mailbox/undeliverable.ts, lib/messages/undeliverable.ts, lib/mailbox/receipt.ts
import { describe, expect, it } from "vitest";
import { db } from "../lib/db";
import {
  fetchHubKeys,
  ReplayGuard,
  type VerifyKey,
  verifyMessageEntry,
  verifyReceiptEntry,
  verifyResponseEntry,
} from "./support/entry-verify";
import { envelope, type Verb } from "./support/envelope";
import { client, startHub } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { approveOrigin } from "./support/provision";
import type { Receiver } from "./support/receiver";
import { call } from "./support/session-kit";
import { type Json, validateOfficial } from "./support/spec";
import { staysFalse, waitFor, waitUntil } from "./support/wait";

// acme: opted in, agent session visibility off (the default).
const A = "overseer/fleet"; // the sender
const B = "deploybot/dev-team"; // the addressee
const C = "bystander/bot"; // same account, neither
const P = "pool/worker"; // dp-020: five sessions, one credential
const X = "bounce/bot"; // dp-022: the destination whose session dies
const R = "restricted/bot"; // allowlist: only B may address it
const R0 = "sealed/bot"; // allowlist: nobody may address it
const HASH = "hash#bot"; // §4 sender-side symmetry
const K = "kill/bot"; // (f)
const OC = "opclosed/bot"; // §16.3: `to` naming its own operator-closed session
// globex: opted in — another account.
const G = "globex/bot";
// vis: opted in, agent session visibility on.
const V1 = "vis/sender";
const V2 = "vis/worker";
const V3 = "vis/never-seen";
const V4 = "vis/operator-closed";
// initech: never opted in.
const N1 = "initech/a";
const N2 = "initech/b";

const VISIBILITY_S = 2;
const hubEnv = (callbackOrigin: string) => ({
  MA2H_INBOUND_VISIBILITY_TIMEOUT_SECONDS: String(VISIBILITY_S),
  MA2H_DEV_CALLBACK_ALLOWLIST: callbackOrigin,
  MA2H_EXPIRY_SWEEP_MS: "500", // the mailbox drop and §7 expiry sweep (default 5 s)
});

let rx: Receiver;
const hub = useHubFixture({
  server: "hub", // web + worker: the bounce consequences are the worker's
  accounts: {
    acme: { agents: [A, B, C, P, X, R, R0, HASH, K, OC], humans: [{ handle: "alice", role: "owner" }] },
    globex: { agents: [G] },
    vis: { agents: [V1, V2, V3, V4], humans: [{ handle: "olga", role: "owner" }] },
    initech: { agents: [N1, N2] },
  },
  receivers: 1,
  env: (h) => hubEnv(h.receiver.origin),
  setup: async (h) => {
    rx = h.receiver;
    await approveOrigin(A, "acme", rx.origin);
    await db().account.updateMany({
      where: { slug: { in: ["acme", "globex", "vis"] } },
      data: { interAgentEnabled: true },
    });
    await db().account.update({ where: { slug: "vis" }, data: { agentSessionVisibility: true } });
    await db().agent.updateMany({
      where: { agentId: R, account: { slug: "acme" } },
      data: { sendersRestricted: true, allowedSenders: [B] },
    });
    await db().agent.updateMany({
      where: { agentId: R0, account: { slug: "acme" } },
      data: { sendersRestricted: true, allowedSenders: [] },
    });
  },
});
const acme = hub.account("acme");
const globex = hub.account("globex");
const vis = hub.account("vis");
const initech = hub.account("initech");
type Account = typeof acme;

const api = (id: string, account: Account = acme) => client(hub.url, account.keys[id]);
const human = (handle: string) => client(hub.url, acme.tokens[handle]);

let hubKeys: VerifyKey[] | undefined;
async function keys(): Promise<VerifyKey[]> {
  hubKeys ??= await fetchHubKeys(`${hub.url}/.well-known/ma2h-keys`);
  return hubKeys;
}

const SHIP_OR_HOLD = {
  mode: "select",
  options: [
    { value: "ship", label: "Ship" },
    { value: "hold", label: "Hold" },
  ],
};

/** An addressed envelope from `from` (naming `session` as its agent.session when given). */
function addressed(type: Verb, from: string, to: string, session?: string, over: Json = {}): Json {
  return envelope(type, from, {
    to,
    agent: {
      id: from,
      run_id: `run_${Math.random().toString(36).slice(2)}`,
      runtime: "cli",
      ...(session ? { session } : {}),
    },
    ...over,
  });
}

type Entry = { message?: Json; response?: Json; receipt?: Json; directive?: Json; signature: string };
const kindOf = (e: Entry) => (["message", "response", "receipt", "directive"] as const).find((k) => k in e);

/**
 * One live session of an agent, as a consuming bridge uses it: drain (`?session=`), verify every
 * entry with the independent verifier (its own replay guard; `to` reconstructed from its own
 * identity), validate every payload against the official schema, ack.
 */
class Bridge {
  readonly guard = new ReplayGuard(120);
  constructor(
    readonly agentId: string,
    readonly session: string,
    readonly account: Account,
  ) {}

  static async open(agentId: string, account: Account = acme, ttl = 300): Promise<Bridge> {
    const res = await api(agentId, account).post("/v1/sessions", { ttl_seconds: ttl });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return new Bridge(agentId, res.body.session.id, account);
  }

  get address(): string {
    return `agent:${this.agentId}#${this.session}`;
  }

  get api() {
    return api(this.agentId, this.account);
  }

  async drain(query = ""): Promise<Entry[]> {
    const res = await this.api.get(`/v1/inbox?session=${this.session}${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const entries = res.body.messages as Entry[];
    for (const e of entries) await this.check(e);
    return entries;
  }

  /** Verifies one entry as this bridge (§9.8, §13.4) and validates its payload's shape. */
  async check(e: Entry): Promise<void> {
    const kind = kindOf(e);
    expect(kind, JSON.stringify(e)).toBeDefined();
    if (kind === "directive") return;
    const payload = e[kind as "message"] as Json;
    expect(validateOfficial("inbound-message.schema.json", payload), JSON.stringify(payload)).toEqual([]);
    const k = await keys();
    const verdict =
      kind === "message"
        ? verifyMessageEntry(payload, e.signature, k, {
            guard: this.guard,
            expectTo: [`agent:${this.agentId}`, this.address],
          })
        : kind === "response"
          ? verifyResponseEntry(payload, e.signature, k, { guard: this.guard, to: this.address })
          : verifyReceiptEntry(payload, e.signature, k, { guard: this.guard, to: this.address });
    expect(verdict, `${kind} ${JSON.stringify(payload)} ${e.signature}`).toMatchObject({ ok: true });
  }

  async ack(ids: string[]) {
    const res = await this.api.post(`/v1/inbox/ack?session=${this.session}`, { ids });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { acked: number };
  }

  async close(): Promise<void> {
    const res = await this.api.delete(`/v1/sessions/${this.session}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
}

const messagesIn = (entries: Entry[]) => entries.filter((e) => e.message).map((e) => e.message as Json);
const responsesIn = (entries: Entry[]) => entries.filter((e) => e.response).map((e) => e.response as Json);
const receiptsIn = (entries: Entry[]) => entries.filter((e) => e.receipt).map((e) => e.receipt as Json);
/** Entries gathered over several drains, once each (a redelivery after the window repeats one). */
const once = (payloads: Json[], key: string) => [...new Map(payloads.map((p) => [p[key], p])).values()];

/** Submits and expects the 202 ack, valid against the official schema. */
async function submitOk(from: string, body: Json, account: Account = acme): Promise<Json> {
  const res = await api(from, account).post("/v1/messages", body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  expect(validateOfficial("submit-ack.schema.json", res.body), JSON.stringify(res.body)).toEqual([]);
  return res.body;
}

/** The submitter's §8.2 read, valid against the official schema. */
async function read(from: string, id: string, account: Account = acme): Promise<Json> {
  const res = await api(from, account).get(`/v1/messages/${id}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(validateOfficial("get-message.schema.json", res.body), JSON.stringify(res.body)).toEqual([]);
  return res.body;
}

/**
 * The read right after a bounce, its schema check soft: get-message.schema.json forbids an ask/task
 * whose mailbox is bounced from reading `open` (§7/§14.2) — so a Hub that applies the auto-resolution
 * later than the bounce shows an invalid body in between. Reported without stopping the test.
 */
async function readJustAfterBounce(from: string, id: string): Promise<Json> {
  const res = await api(from).get(`/v1/messages/${id}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect
    .soft(
      validateOfficial("get-message.schema.json", res.body),
      `read right after the bounce: ${JSON.stringify(res.body)}`,
    )
    .toEqual([]);
  return res.body;
}

/** Drains a bridge repeatedly, accumulating entries, until `done` holds over what was gathered. */
async function gather(bridge: Bridge, done: (all: Entry[]) => boolean, ms = 8000): Promise<Entry[]> {
  const all: Entry[] = [];
  await waitFor(
    async () => {
      all.push(...(await bridge.drain()));
      return done(all);
    },
    { timeout: ms, every: 150, what: `the awaited entries in ${bridge.address}'s drains` },
  );
  return all;
}

/**
 * Until the §8.7 visibility window of every entry addressed to, or claimed by, one of these sessions
 * has run out (its `visible_at` stamp is past): from then on whatever they left un-acked is drainable
 * again, so a drain that still shows nothing proves the entry was consumed. Waits on the stamp the
 * Hub judges by (this box's clock), not on a guess at the window.
 */
async function windowOver(...bridges: Bridge[]): Promise<void> {
  const sessions = bridges.map((b) => b.session);
  await waitFor(
    async () => {
      const rows = await db().mailboxEntry.findMany({
        where: { OR: [{ toSession: { in: sessions } }, { claimSession: { in: sessions } }] },
        select: { visibleAt: true },
      });
      return rows.every((r) => r.visibleAt.getTime() < Date.now());
    },
    { what: `the visibility window of ${sessions.join(", ")} to run out` },
  );
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

describe("(a) one exchange end to end: A asks B, B answers (§6, §8.2, §8.7.1, §8.8, §9.8, §14.2)", () => {
  it("message entry verified and stripped; B resolves; A's session gets the verified response; both tracks walk to acknowledged", async () => {
    const a = await Bridge.open(A);
    const b = await Bridge.open(B);
    const state = { step: "await-approval", nested: { n: 1.5, list: [1, "two"] } };
    const body = addressed("ask", A, `agent:${B}`, a.session, {
      state,
      client_ref: "ticket-4711",
      body: "The queue consumer is wedged.",
      priority: "high",
      tags: ["ops"],
      context: [{ kind: "text", text: "lag 9000s" }],
      request: {
        ...SHIP_OR_HOLD,
        callback: { mode: "push", url: `${rx.origin}/a-callback`, auth: { scheme: "hmac", secret_ref: "cb" } },
      },
    });
    const ack = await submitOk(A, body);
    expect(ack.id).toMatch(/^msg_/);
    expect(ack.status).toBe("open");
    expect(ack.destination).toEqual({ state: "unknown" }); // acme: visibility off
    const id = ack.id as string;
    expect((await read(A, id)).mailbox).toEqual({ state: "queued" });

    // A session-less drain of B (a v0.4 consumer) never sees the entry.
    const legacy = await api(B).get("/v1/inbox");
    expect(legacy.body.messages.filter((e: Entry) => kindOf(e) !== "directive")).toEqual([]);

    const drained = await b.drain();
    const msgs = messagesIn(drained);
    expect(msgs).toHaveLength(1);
    const entry = msgs[0] as Json;
    // The delivered form: the submitted envelope minus state, client_ref and request.callback, plus
    // the Hub-assigned id and the Hub-attested, session-qualified `from` (§8.7.1, dp-020 (8), (9)).
    const expected = structuredClone(body);
    delete expected.state;
    delete expected.client_ref;
    delete (expected.request as Json).callback;
    expect(entry).toEqual({ ...expected, id, from: `agent:${A}#${a.session}` });
    expect(entry.idempotency_key).toBe(body.idempotency_key);

    const delivered = await read(A, id);
    expect(delivered.mailbox.state).toBe("delivered");
    expect(delivered.mailbox.delivered_at).toMatch(ISO);
    expect(delivered.status).toBe("open");

    // B resolves without presenting a session: the attested actor is the bare principal.
    const resolved = await b.api.post(`/v1/messages/${id}/resolve`, {
      resolution: "answered",
      value: "ship",
      comment: "go",
    });
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    expect(resolved.body).toMatchObject({ id, status: "answered" });
    const resolutionId = resolved.body.resolution_id as string;
    expect(resolutionId).toMatch(/^res_/);

    const got = await gather(a, (all) => responsesIn(all).length > 0);
    const responses = responsesIn(got);
    expect(responses).toHaveLength(1);
    const response = responses[0] as Json;
    expect(response).toMatchObject({
      in_reply_to: id,
      resolution_id: resolutionId,
      resolution: "answered",
      state, // round-tripped verbatim to the submitter only
      response: { value: "ship", actor: `agent:${B}`, comment: "go", edited: false },
    });
    expect(response).not.toHaveProperty("to"); // the destination is bound in the signature only

    // Acks are credential-scoped: B acking A's resolution id, or A acking B's message entry, is a no-op.
    await b.ack([resolutionId]);
    await a.ack([id]);
    const meanwhile = await read(A, id);
    expect(meanwhile.mailbox.state).toBe("delivered");
    expect(meanwhile.delivery?.state).not.toBe("acknowledged");

    expect(await a.ack([resolutionId])).toEqual({ acked: 1 });
    const afterResponseAck = await read(A, id);
    expect(afterResponseAck.delivery).toMatchObject({ state: "acknowledged" });
    expect(afterResponseAck.delivery.acknowledged_at).toMatch(ISO);
    expect(afterResponseAck.mailbox.state).toBe("delivered"); // B has not acked yet

    expect(await b.ack([id])).toEqual({ acked: 1 });
    const done = await read(A, id);
    expect(done.mailbox).toMatchObject({ state: "acknowledged", delivered_at: delivered.mailbox.delivered_at });
    expect(done.mailbox.acknowledged_at).toMatch(ISO);
    expect(done.response).toMatchObject({ resolution_id: resolutionId, response: { actor: `agent:${B}` } });

    // Consumed means consumed: nothing comes back after the visibility window, on either side.
    await windowOver(a, b);
    expect(messagesIn(await b.drain())).toEqual([]);
    expect(responsesIn(await a.drain())).toEqual([]);
    // The submitter's callback still carries the same resolution (dual-path delivery, §6).
    const pushed = await rx.waitFor("/a-callback", 1, 10_000);
    expect(JSON.parse(pushed[0]?.body ?? "{}").resolution_id).toBe(resolutionId);
  });

  it("the response entry's drain stamps delivered-to-agent; its inbox ack is the note-less §14.3 ack under first-ack-wins", async () => {
    const a = await Bridge.open(A);
    const b = await Bridge.open(B);
    const ask = await submitOk(A, addressed("ask", A, `agent:${B}`, a.session));
    await b.drain();
    const resolved = await b.api.post(`/v1/messages/${ask.id}/resolve`, { resolution: "declined" });
    expect(resolved.status).toBe(200);
    const stamp = async () =>
      (await db().resolution.findUniqueOrThrow({ where: { messageId: ask.id } })).deliveredToAgentAt;
    expect(await stamp()).toBeNull(); // nobody has seen the answer yet (no GET by A so far)
    const got = await gather(a, (all) => responsesIn(all).length > 0);
    expect(responsesIn(got).map((r) => r.resolution_id)).toEqual([resolved.body.resolution_id]);
    expect(await stamp()).not.toBeNull(); // the client-requested drain is delivery evidence

    // The resource-scoped ack lands first, with a note; the inbox ack then only consumes the entry.
    const first = await a.api.post(`/v1/messages/${ask.id}/ack`, { note: "via the message" });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    await a.ack([resolved.body.resolution_id]);
    const r = await read(A, ask.id);
    expect(r.delivery).toMatchObject({ state: "acknowledged", ack: { note: "via the message" } });
    await windowOver(a);
    expect(responsesIn(await a.drain())).toEqual([]); // consumed
    await b.ack([ask.id]);
  });

  it("a session-addressed notify: acked queued, delivered only to that session, verified with the qualified to", async () => {
    const a = await Bridge.open(A);
    const b1 = await Bridge.open(B);
    const b2 = await Bridge.open(B);
    const ack = await submitOk(A, addressed("notify", A, b1.address, a.session, { title: "heads up" }));
    expect(ack.status).toBe("queued");
    expect(ack.destination).toEqual({ state: "unknown" });
    expect(messagesIn(await b2.drain())).toEqual([]);
    const got = messagesIn(await b1.drain());
    expect(got.map((m) => [m.id, m.to, m.from])).toEqual([[ack.id, b1.address, `agent:${A}#${a.session}`]]);
    const r = await read(A, ack.id);
    expect([r.status, r.mailbox.state]).toEqual(["delivered", "delivered"]); // status mirrors the track (§5.1)
    await b1.ack([ack.id]);
    const acked = await read(A, ack.id);
    expect([acked.status, acked.mailbox.state]).toEqual(["acknowledged", "acknowledged"]);
  });

  it("a submit without agent.session attests the bare principal in `from`", async () => {
    const b = await Bridge.open(B);
    const ack = await submitOk(A, addressed("notify", A, b.address));
    const got = messagesIn(await b.drain());
    expect(got.map((m) => [m.id, m.from])).toEqual([[ack.id, `agent:${A}`]]);
    await b.ack([ack.id]);
  });
});

describe("(b) dp-020: session-scoped drain, first claim wins, sibling rescue, session-less isolation", () => {
  it("five sessions drain a principal-addressed entry in parallel: exactly one gets it; unacked, a sibling gets it after the window", async () => {
    const a = await Bridge.open(A);
    const pool = await Promise.all(Array.from({ length: 5 }, () => Bridge.open(P)));
    const ack = await submitOk(A, addressed("ask", A, `agent:${P}`, a.session));
    const id = ack.id as string;

    const legacyBefore = await api(P).get("/v1/inbox");
    expect(legacyBefore.body.messages).toEqual([]); // session-less: v0.4 shape only

    const drains = await Promise.all(pool.map((s) => s.drain()));
    const claimants = pool.filter((_s, i) => messagesIn(drains[i] as Entry[]).some((m) => m.id === id));
    expect(claimants).toHaveLength(1);
    const claimant = claimants[0] as Bridge;
    const firstSignature = drains[pool.indexOf(claimant)]?.find((e) => e.message?.id === id)?.signature;

    // In flight: hidden from every sibling, and from a session-less drain, within the window.
    const siblings = pool.filter((s) => s !== claimant);
    for (const s of siblings) expect(messagesIn(await s.drain())).toEqual([]);
    expect((await api(P).get("/v1/inbox")).body.messages).toEqual([]);

    // The claimant dies without acking; a sibling is rescued after the window (dp-020 (7)).
    await claimant.close();
    expect((await read(A, id)).mailbox.state).toBe("delivered"); // principal mail does not bounce
    // Every sibling drains at once, round after round, until the window lets one of them have it.
    const has = (entries: Entry[] | undefined) => messagesIn(entries ?? []).some((m) => m.id === id);
    const rescue = await waitFor(
      async () => {
        const round = await Promise.all(siblings.map((s) => s.drain()));
        return round.some(has) && round;
      },
      { what: "a sibling's drain to rescue the entry after the visibility window" },
    );
    const rescuers = siblings.filter((_s, i) => has(rescue[i]));
    expect(rescuers).toHaveLength(1);
    const rescuer = rescuers[0] as Bridge;
    const redelivered = rescue[siblings.indexOf(rescuer)]?.find((e) => e.message?.id === id);
    expect(redelivered?.signature).not.toBe(firstSignature); // re-signed, fresh t/jti (dp-018)
    expect(redelivered?.message?.to).toBe(`agent:${P}`);

    // Still no v0.5 kind for a session-less drain; the ack is the credential's (dp-020 (2)).
    expect((await api(P).get("/v1/inbox")).body.messages).toEqual([]);
    expect((await api(P).post("/v1/inbox/ack", { ids: [id] })).body).toEqual({ acked: 1 });
    expect((await read(A, id)).mailbox.state).toBe("acknowledged");
    await windowOver(...siblings);
    for (const r of await Promise.all(siblings.map((s) => s.drain()))) expect(messagesIn(r)).toEqual([]);
  });

  it("many principal entries across concurrent drains: each handed to exactly one session", async () => {
    const pool = await Promise.all(Array.from({ length: 5 }, () => Bridge.open(P)));
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await submitOk(A, addressed("notify", A, `agent:${P}`))).id as string);
    const drains = await Promise.all(pool.flatMap((s) => [s.drain("&max=3"), s.drain("&max=3")]));
    const got = drains.flatMap((d) => messagesIn(d).map((m) => m.id as string));
    expect(new Set(got).size).toBe(got.length);
    expect([...got].sort()).toEqual([...ids].sort());
    await api(P).post("/v1/inbox/ack", { ids });
  });

  it("session-less drains never see message, response or receipt entries", async () => {
    const a = await Bridge.open(A);
    const x = await Bridge.open(X);
    const ask = await submitOk(A, addressed("ask", A, x.address, a.session));
    expect((await api(X).get("/v1/inbox")).body.messages).toEqual([]);
    await x.drain();
    await x.close(); // bounce → receipt + auto-cancellation response for A's session
    await gather(a, (all) => receiptsIn(all).length > 0 && responsesIn(all).length > 0);
    await windowOver(a); // whatever A's session left un-acked is visible again
    const legacy = await api(A).get("/v1/inbox");
    expect(legacy.status).toBe(200);
    expect(legacy.body.messages.filter((e: Entry) => kindOf(e) !== "directive")).toEqual([]);
    expect((await read(A, ask.id)).status).toBe("cancelled");
  });
});

describe("(c) dp-022: bounce on session death, auto-resolution, receipts", () => {
  it("drained-unacked → bounced prior delivered; never drained → prior queued; one receipt each; ask cancelled, task dismissed by system:undeliverable", async () => {
    const a = await Bridge.open(A);
    const x = await Bridge.open(X);
    const seen = await submitOk(A, addressed("ask", A, x.address, a.session, { title: "seen then orphaned" }));
    const principal = await submitOk(A, addressed("notify", A, `agent:${X}`, a.session, { title: "principal" }));
    const ackedNotify = await submitOk(A, addressed("notify", A, x.address, a.session, { title: "acked" }));
    const firstDrain = messagesIn(await x.drain()).map((m) => m.id);
    expect(firstDrain.sort()).toEqual([seen.id, principal.id, ackedNotify.id].sort());
    await x.ack([ackedNotify.id]);
    const unseenTask = await submitOk(A, addressed("task", A, x.address, a.session, { title: "never seen" }));
    const unseenNotify = await submitOk(A, addressed("notify", A, x.address, a.session, { title: "never seen" }));
    const seenAt = (await read(A, seen.id)).mailbox.delivered_at;
    expect(seenAt).toMatch(ISO);

    await x.close();

    // The authoritative pull, at once (every read must validate: a bounced ask is never `open`).
    const seenRead = await readJustAfterBounce(A, seen.id);
    expect(seenRead.mailbox).toMatchObject({ state: "bounced", prior: "delivered", delivered_at: seenAt });
    const taskRead = await readJustAfterBounce(A, unseenTask.id);
    expect(taskRead.mailbox).toMatchObject({ state: "bounced", prior: "queued" });
    expect(taskRead.mailbox).not.toHaveProperty("delivered_at");
    const notifyRead = await read(A, unseenNotify.id);
    expect([notifyRead.status, notifyRead.mailbox.state, notifyRead.mailbox.prior]).toEqual([
      "bounced",
      "bounced",
      "queued",
    ]);
    // Acked and principal-addressed entries do not bounce.
    expect((await read(A, ackedNotify.id)).mailbox.state).toBe("acknowledged");
    expect((await read(A, principal.id)).mailbox.state).toBe("delivered");

    // The worker's consequences: the §7 auto-resolutions, within seconds.
    const settled = async (id: string) => {
      await waitUntil(
        async () => (await api(A).get(`/v1/messages/${id}`)).body,
        (r) => r.status !== "open",
        { timeout: 8000, every: 100, what: `${id} auto-resolved` },
      );
      return read(A, id); // once settled, the read must validate
    };
    const cancelled = await settled(seen.id);
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.response).toMatchObject({ resolution: "cancelled", response: { actor: "system:undeliverable" } });
    const dismissed = await settled(unseenTask.id);
    expect(dismissed.status).toBe("dismissed");
    // §7 names the attested actor for the task too; §6 lets a task Response omit `response` — soft,
    // so the rest of the obligation is still checked when the Hub omits it.
    expect
      .soft(dismissed.response.response?.actor, `task auto-dismissal: ${JSON.stringify(dismissed.response)}`)
      .toBe("system:undeliverable");

    // A's live submit session: one receipt per bounced message, and the auto-resolution responses.
    const bounced = [seen.id, unseenTask.id, unseenNotify.id];
    const all = await gather(a, (got) => {
      const r = new Set(receiptsIn(got).map((x) => x.in_reply_to));
      const s = new Set(responsesIn(got).map((x) => x.in_reply_to));
      return bounced.every((m) => r.has(m)) && s.has(seen.id) && s.has(unseenTask.id);
    });
    const receipts = once(receiptsIn(all), "id");
    expect(receipts.map((x) => x.in_reply_to).sort()).toEqual([...bounced].sort());
    for (const receipt of receipts) {
      expect(receipt).toMatchObject({
        type: "receipt",
        event: "bounced",
        session: x.session,
        to: a.address,
      });
      expect(receipt.id).toMatch(/^rcpt_/);
      expect(receipt.at).toMatch(ISO);
      // One stamp, two surfaces: the receipt's prior equals the pull's.
      const pulled = await read(A, receipt.in_reply_to);
      expect(receipt.prior).toBe(pulled.mailbox.prior);
    }
    expect(receipts.find((r) => r.in_reply_to === seen.id)?.prior).toBe("delivered");
    expect(receipts.find((r) => r.in_reply_to === unseenTask.id)?.prior).toBe("queued");

    const responses = once(responsesIn(all), "resolution_id");
    expect(responses.map((r) => r.in_reply_to).sort()).toEqual([seen.id, unseenTask.id].sort());
    for (const r of responses) {
      if (r.in_reply_to === seen.id) expect(r.response?.actor).toBe("system:undeliverable");
      expect(r.resolution).toBe(r.in_reply_to === seen.id ? "cancelled" : "dismissed");
    }
    // The response and the receipt for the same message carry non-colliding ack keys (res_ vs rcpt_).
    const keysToAck = [...receipts.map((r) => r.id as string), ...responses.map((r) => r.resolution_id as string)];
    expect(new Set(keysToAck).size).toBe(keysToAck.length);
    expect((await a.ack(keysToAck)).acked).toBe(keysToAck.length);

    // Receipts generate nothing, and nothing more is minted: after the window A's session is empty.
    await windowOver(a);
    const after = await a.drain();
    expect(receiptsIn(after)).toEqual([]);
    expect(responsesIn(after)).toEqual([]);
    for (const m of bounced)
      expect(await db().mailboxEntry.count({ where: { kind: "receipt", content: { contains: m } } })).toBe(1);
  });

  it("response entries never bounce: the submitter's session ending with an un-acked response produces nothing", async () => {
    const a = await Bridge.open(A);
    const aOther = await Bridge.open(A);
    const b = await Bridge.open(B);
    const ask = await submitOk(A, addressed("ask", A, `agent:${B}`, a.session));
    await b.drain();
    const resolved = await b.api.post(`/v1/messages/${ask.id}/resolve?session=${b.session}`, {
      resolution: "declined",
    });
    expect(resolved.status).toBe(200);
    expect(responsesIn(await gather(a, (all) => responsesIn(all).length > 0))).toHaveLength(1);
    await a.close(); // un-acked response entry on a dying session
    // A window as long as the worker's reaction time and B's visibility window together, in which
    // the response entry must not bounce and no receipt for the ask may be minted.
    await staysFalse(
      async () =>
        (await db().mailboxEntry.count({
          where: {
            OR: [
              { toSession: a.session, state: "bounced" },
              { kind: "receipt", content: { contains: ask.id } },
            ],
          },
        })) > 0,
      VISIBILITY_S * 1000 + 300,
      "a bounce of the response entry, or a receipt for the ask",
      100,
    );
    const r = await read(A, ask.id);
    expect(r.status).toBe("declined");
    expect(r.response.response.actor).toBe(`agent:${B}#${b.session}`);
    expect(r.mailbox.state).toBe("delivered"); // B drained, never acked; B's session lives
    expect(r.delivery?.state).not.toBe("expired");
    // Nobody gets a receipt for it: not A's other session, not B.
    expect(receiptsIn(await aOther.drain())).toEqual([]);
    expect(receiptsIn(await b.drain())).toEqual([]);
    // The pull remains authoritative and answers.
    expect(r.response.resolution_id).toBe(resolved.body.resolution_id);
    await b.ack([ask.id]);
  });

  it("an addressee that already resolved before its session died: bounced, but the resolution stands (first terminal wins)", async () => {
    const a = await Bridge.open(A);
    const x = await Bridge.open(X);
    const ask = await submitOk(A, addressed("ask", A, x.address, a.session));
    await x.drain();
    const res = await x.api.post(`/v1/messages/${ask.id}/resolve`, { resolution: "answered", value: "hold" });
    expect(res.status).toBe(200);
    await x.close();
    // The worker has applied the bounce's consequences (receipt, §7 auto-resolution) once the
    // entry is settled: only then does "the resolution stands" say anything.
    await waitFor(async () => (await db().mailboxEntry.findUnique({ where: { id: ask.id } }))?.settledAt, {
      what: "the bounced entry settled by the worker",
    });
    const r = await read(A, ask.id);
    expect(r.status).toBe("answered");
    expect(r.response.resolution_id).toBe(res.body.resolution_id);
    expect(r.mailbox).toMatchObject({ state: "bounced", prior: "delivered" });
    // The sender gets the answer and the bounce receipt; no second response.
    const all = await gather(a, (got) => responsesIn(got).length > 0 && receiptsIn(got).length > 0, 6000);
    expect(once(responsesIn(all), "resolution_id").map((x) => x.resolution_id)).toEqual([res.body.resolution_id]);
    expect(once(receiptsIn(all), "id").map((x) => [x.in_reply_to, x.prior])).toEqual([[ask.id, "delivered"]]);
  });
});

describe("(c) dp-022 (5), (7), (8): delivery-track expiry means never delivered", () => {
  it("never drained past expires_at → mailbox expired (no delivered_at, no prior), no receipt; drained → stays delivered", async () => {
    const a = await Bridge.open(A);
    const b = await Bridge.open(B);
    const soon = () => new Date(Date.now() + 2000).toISOString();
    const drainedFirst = await submitOk(A, addressed("notify", A, b.address, a.session, { expires_at: soon() }));
    expect(messagesIn(await b.drain()).map((m) => m.id)).toEqual([drainedFirst.id]);
    const neverNotify = await submitOk(A, addressed("notify", A, `agent:${B}`, a.session, { expires_at: soon() }));
    const neverAsk = await submitOk(A, addressed("ask", A, `agent:${B}`, a.session, { expires_at: soon() }));

    const ended = async (id: string) => {
      await waitUntil(
        async () => (await api(A).get(`/v1/messages/${id}`)).body,
        (r) => r.mailbox?.state === "expired" && r.status !== "open",
        { timeout: 10_000, every: 100, what: `${id} expired on both tracks` },
      );
      return read(A, id);
    };
    const notifyRead = await ended(neverNotify.id);
    expect([notifyRead.status, notifyRead.mailbox]).toEqual(["expired", { state: "expired" }]);
    const askRead = await ended(neverAsk.id);
    expect(askRead.mailbox).toEqual({ state: "expired" });
    // The message-level §7 expiry and the undeliverable auto-resolution ride one CAS: exactly one wins.
    expect(["expired", "cancelled"]).toContain(askRead.status);
    expect(await db().resolution.count({ where: { messageId: neverAsk.id } })).toBe(1);

    // Seen before expiry: the delivery track is never rewritten to `expired`.
    const seen = await read(A, drainedFirst.id);
    expect(seen.mailbox.state).not.toBe("expired");
    expect(seen.mailbox.delivered_at).toMatch(ISO);

    // The sender's session: the ask's Response, but no receipt — expiry emits none in v0.5.
    const got = await gather(a, (all) => responsesIn(all).some((r) => r.in_reply_to === neverAsk.id), 4000);
    expect(once(responsesIn(got), "resolution_id").map((r) => [r.in_reply_to, r.resolution])).toEqual([
      [neverAsk.id, askRead.status],
    ]);
    expect(receiptsIn(got)).toEqual([]);
    // The never-drained entries are not delivered after their end.
    expect(messagesIn(await b.drain()).map((m) => m.id)).not.toContain(neverNotify.id);
  });
});

describe("(d) dp-023: addressed submit honesty", () => {
  const raw = (from: string, body: Json, account: Account = acme) =>
    call(hub.url, "POST", "/v1/messages", account.keys[from], body);

  it("unknown, cross-account, allowlist-blocked, unknown session and (visibility off) another agent's terminal session: byte-identical 422 unknown_destination", async () => {
    const g = await Bridge.open(G, globex);
    const bEnded = await Bridge.open(B);
    await bEnded.close();
    const cases: [string, string][] = [
      ["unknown agent", "agent:nobody/here"],
      ["cross-account agent", `agent:${G}`],
      ["cross-account session", g.address],
      ["allowlist-blocked", `agent:${R}`],
      ["empty allowlist", `agent:${R0}`],
      ["unknown session of a real agent", `agent:${B}#sess_0000000000000000000000000`],
      ["another agent's terminal session (visibility off)", bEnded.address],
    ];
    const bodies: [string, number, string][] = [];
    for (const [name, to] of cases) {
      const res = await raw(A, addressed("ask", A, to));
      bodies.push([name, res.status, res.text]);
    }
    const first = bodies[0] as [string, number, string];
    expect(first[1]).toBe(422);
    expect(JSON.parse(first[2]).error.code).toBe("unknown_destination");
    for (const [name, status, text] of bodies) expect([name, status, text]).toEqual([name, 422, first[2]]);
    // Nothing was created by the refusals.
    expect(await db().message.count({ where: { toAddress: { in: cases.map((c) => c[1]) } } })).toBe(0);
    // The same sender is let through where the allowlist names it.
    const allowed = await submitOk(B, addressed("notify", B, `agent:${R}`));
    expect(allowed.status).toBe("queued");
  });

  it("an account that has not opted in: 422 invalid_field, nothing created", async () => {
    const res = await raw(N1, addressed("notify", N1, `agent:${N2}`), initech);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("invalid_field");
    expect(res.body.error.message).toMatch(
      /this account has not opted in to the inter-agent leg.*GET \/v1\/agents\/me/,
    );
    expect(await db().message.count({ where: { toAddress: `agent:${N2}` } })).toBe(0);
  });

  it("the sender's own other terminal session: 410 destination_gone, whatever the visibility", async () => {
    const own = await Bridge.open(A);
    await own.close();
    const res = await raw(A, addressed("notify", A, own.address));
    expect([res.status, res.body.error.code]).toEqual([410, "destination_gone"]);
  });

  it("an operator-closed session: 410 destination_gone regardless of ownership, the self-closed body (§16.3)", async () => {
    // The sender's own other session, closed by the operator (the stop closes every live one).
    const own = await Bridge.open(OC);
    const operatorClose = await human("alice").delete(`/v1/sessions/${own.session}`);
    expect(operatorClose.body.session).toMatchObject({ state: "closed", closed_by_operator: true });
    const self = await raw(OC, addressed("notify", OC, own.address));
    expect([self.status, self.body.error.code]).toEqual([410, "destination_gone"]);
    // Another agent's, where session visibility lets the sender tell ended from unknown.
    const selfClosed = await Bridge.open(V2, vis);
    await selfClosed.close();
    const killed = await Bridge.open(V4, vis);
    const olga = client(hub.url, vis.tokens.olga);
    expect((await olga.delete(`/v1/sessions/${killed.session}`)).body.session).toMatchObject({
      closed_by_operator: true,
    });
    const other = await raw(V1, addressed("ask", V1, killed.address), vis);
    expect([other.status, other.body.error.code]).toEqual([410, "destination_gone"]);
    // Nothing tells the closer apart: the body is the self-closed session's, byte for byte.
    const plain = await raw(V1, addressed("ask", V1, selfClosed.address), vis);
    expect(other.text.replaceAll(killed.session, "S")).toBe(plain.text.replaceAll(selfClosed.session, "S"));
    for (const res of [self, other]) expect(res.text).not.toMatch(/operator/i);
    expect(await db().message.count({ where: { toAddress: { in: [own.address, killed.address] } } })).toBe(0);
  });

  it("visibility on: another agent's terminal session is 410 destination_gone; the ack carries presence with last_seen", async () => {
    const v2 = await Bridge.open(V2, vis);
    const live = await submitOk(V1, addressed("notify", V1, v2.address), vis);
    expect(live.status).toBe("queued");
    expect(live.destination.state).toBe("online");
    expect(live.destination.last_seen).toMatch(ISO);
    const principal = await submitOk(V1, addressed("ask", V1, `agent:${V2}`), vis);
    expect(principal.status).toBe("open");
    expect(principal.destination.state).toBe("online");

    // Never seen at all: unknown, without last_seen.
    const never = await submitOk(V1, addressed("notify", V1, `agent:${V3}`), vis);
    expect(never.destination).toEqual({ state: "unknown" });

    await v2.close();
    const gone = await raw(V1, addressed("notify", V1, v2.address), vis);
    expect([gone.status, gone.body.error.code]).toEqual([410, "destination_gone"]);
    const unknown = await raw(V1, addressed("notify", V1, `agent:${V2}#sess_0000000000000000000000000`), vis);
    expect([unknown.status, unknown.body.error.code]).toEqual([422, "unknown_destination"]);
    // No live session that could claim it: not `online` (§15.1), but seen: offline with last_seen.
    const offline = await submitOk(V1, addressed("notify", V1, `agent:${V2}`), vis);
    expect(offline.destination.state).toBe("offline");
    expect(offline.destination.last_seen).toMatch(ISO);
  });

  it("every addressed ack carries destination; a notify is queued, never delivered; ask and task are open", async () => {
    for (const type of ["notify", "ask", "task"] as const) {
      const ack = await submitOk(A, addressed(type, A, `agent:${B}`));
      expect([type, ack.status, ack.destination]).toEqual([
        type,
        type === "notify" ? "queued" : "open",
        { state: "unknown" },
      ]);
    }
    // An unaddressed submit carries no destination.
    const plain = await submitOk(A, envelope("notify", A));
    expect(plain.status).toBe("delivered");
    expect(plain).not.toHaveProperty("destination");
  });

  it("a sender whose agent.id contains '#': 422 invalid_field", async () => {
    const res = await raw(HASH, addressed("notify", HASH, `agent:${B}`));
    expect([res.status, res.body.error.code]).toEqual([422, "invalid_field"]);
  });

  it("a replay from a new session and run returns the original ack (stored destination) and the original session keeps the response", async () => {
    const first = await Bridge.open(V1, vis);
    const v2 = await Bridge.open(V2, vis);
    const body = addressed("ask", V1, `agent:${V2}`, first.session, { state: { original: true } });
    const original = await submitOk(V1, body, vis);
    expect(original.destination.state).toBe("online");

    // Drains until V2's session shows newer activity than the stored snapshot: a recomputed snapshot
    // would differ.
    const snapshotSeen = Date.parse(original.destination.last_seen);
    await waitFor(
      async () => {
        await v2.drain();
        const s = await db().agentSession.findUnique({ where: { id: v2.session }, select: { lastSeenAt: true } });
        return (s?.lastSeenAt?.getTime() ?? 0) > snapshotSeen;
      },
      { every: 100, what: "V2's last_seen to move past the stored snapshot" },
    );
    const second = await Bridge.open(V1, vis);
    const retry = { ...body, agent: { ...(body.agent as Json), session: second.session, run_id: "run_after_crash" } };
    const replayed = await submitOk(V1, retry, vis);
    expect(replayed).toEqual(original);

    // A differing payload under the same key is 409.
    const conflict = await raw(V1, { ...retry, title: "something else" }, vis);
    expect([conflict.status, conflict.body.error.code]).toEqual([409, "idempotency_conflict"]);

    const resolved = await v2.api.post(`/v1/messages/${original.id}/resolve`, {
      resolution: "answered",
      value: "ship",
    });
    expect(resolved.status).toBe(200);
    const toFirst = await gather(first, (all) => responsesIn(all).length > 0);
    expect(responsesIn(toFirst).map((r) => [r.in_reply_to, r.resolution_id])).toEqual([
      [original.id, resolved.body.resolution_id],
    ]);
    expect(responsesIn(toFirst)[0]?.state).toEqual({ original: true });
    expect(responsesIn(await second.drain())).toEqual([]);
    // A replay now reads the current status of the owning track, with the same stored destination.
    const late = await submitOk(V1, retry, vis);
    expect(late).toMatchObject({ id: original.id, status: "answered", destination: original.destination });
  });
});

describe("(e) dp-024: who may resolve an addressed message (§9.1, §8.8)", () => {
  const resolve = (who: ReturnType<typeof client>, id: string, session?: string) =>
    who.post(`/v1/messages/${id}/resolve${session ? `?session=${session}` : ""}`, {
      resolution: "answered",
      value: "ship",
    });

  it("default: the addressee (any session) — the submitter, a bystander agent and the account's human are refused", async () => {
    const b = await Bridge.open(B);
    const ask = await submitOk(A, addressed("ask", A, `agent:${B}`));
    const bySubmitter = await resolve(api(A), ask.id);
    expect([bySubmitter.status, bySubmitter.body.error?.code]).toEqual([403, "not_authorized"]);
    const byBystander = await resolve(api(C), ask.id);
    expect([403, 404]).toContain(byBystander.status);
    const byHuman = await resolve(human("alice"), ask.id);
    expect([403, 404]).toContain(byHuman.status);
    expect((await read(A, ask.id)).status).toBe("open");

    const ok = await resolve(b.api, ask.id, b.session);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((await read(A, ask.id)).response.response.actor).toBe(`agent:${B}#${b.session}`);
    const again = await resolve(b.api, ask.id, b.session);
    expect([again.status, again.body.error?.code]).toEqual([409, "already_terminal"]);
  });

  it("a listed human may resolve", async () => {
    const ask = await submitOk(
      A,
      addressed("ask", A, `agent:${B}`, undefined, {
        request: { ...SHIP_OR_HOLD, allowed_resolvers: ["human:alice"] },
      }),
    );
    const ok = await resolve(human("alice"), ask.id);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((await read(A, ask.id)).response.response.actor).toBe("human:alice");
  });

  it("session-qualified allowed_resolvers: only that exact session matches; the principal form matches any", async () => {
    const b1 = await Bridge.open(B);
    const b2 = await Bridge.open(B);
    const pinned = await submitOk(
      A,
      addressed("ask", A, `agent:${B}`, undefined, {
        request: { ...SHIP_OR_HOLD, allowed_resolvers: [`agent:${B}#${b1.session}`] },
      }),
    );
    expect([403, 404]).toContain((await resolve(b2.api, pinned.id, b2.session)).status);
    expect([403, 404]).toContain((await resolve(b1.api, pinned.id)).status); // no session presented
    const ok = await resolve(b1.api, pinned.id, b1.session);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((await read(A, pinned.id)).response.response.actor).toBe(`agent:${B}#${b1.session}`);

    const anyone = await submitOk(
      A,
      addressed("ask", A, `agent:${B}`, undefined, { request: { ...SHIP_OR_HOLD, allowed_resolvers: [`agent:${B}`] } }),
    );
    const viaB2 = await resolve(b2.api, anyone.id, b2.session);
    expect(viaB2.status).toBe(200);
    expect((await read(A, anyone.id)).response.response.actor).toBe(`agent:${B}#${b2.session}`);
  });

  it("an explicit list replaces the addressee default", async () => {
    const ask = await submitOk(
      A,
      addressed("ask", A, `agent:${B}`, undefined, { request: { ...SHIP_OR_HOLD, allowed_resolvers: [`agent:${C}`] } }),
    );
    expect([403, 404]).toContain((await resolve(api(B), ask.id)).status);
    const ok = await resolve(api(C), ask.id);
    expect(ok.status).toBe(200);
    expect((await read(A, ask.id)).response.response.actor).toBe(`agent:${C}`);
  });
});

describe("(f) §3.1: a SIGKILL of the whole Hub mid-exchange loses nothing", () => {
  it("claimed, queued and answered entries survive; the response is still routed to the submitting session", async () => {
    const a = await Bridge.open(A, acme, 300);
    const k = await Bridge.open(K, acme, 300);
    const claimed = await submitOk(A, addressed("ask", A, k.address, a.session, { title: "claimed" }));
    expect(messagesIn(await k.drain()).map((m) => m.id)).toEqual([claimed.id]);
    const answered = await submitOk(A, addressed("ask", A, `agent:${K}`, a.session, { title: "answered" }));
    expect(messagesIn(await k.drain()).map((m) => m.id)).toEqual([answered.id]);
    const resolved = await k.api.post(`/v1/messages/${answered.id}/resolve`, { resolution: "answered", value: "hold" });
    expect(resolved.status).toBe(200);
    const queued = await submitOk(A, addressed("task", A, `agent:${K}`, a.session, { title: "queued" }));

    const old = hub.web;
    await old.stop("SIGKILL");
    const restarted = await startHub({
      databaseUrl: hub.databaseUrl,
      mode: "hub",
      port: old.port,
      env: hubEnv(rx.origin),
    });
    hub.webs[0] = restarted; // the fixture stops it at the end
    hubKeys = undefined; // re-fetch: the key must be the same one, from the database
    expect(restarted.url).toBe(old.url);

    // The sessions survived (leases are rows), and nothing bounced.
    expect((await read(A, claimed.id)).mailbox.state).toBe("delivered");
    expect((await read(A, queued.id)).mailbox.state).toBe("queued");
    // The queued entry drains; the claimed ones come back once their window has passed (it may have
    // during the restart); the answer is routed to A's session.
    const toA = await gather(a, (all) => responsesIn(all).some((r) => r.in_reply_to === answered.id));
    expect(once(responsesIn(toA), "resolution_id").map((r) => r.resolution_id)).toEqual([resolved.body.resolution_id]);
    const toK = await gather(
      k,
      (all) => [claimed.id, answered.id, queued.id].every((id) => messagesIn(all).some((m) => m.id === id)),
      (VISIBILITY_S + 3) * 1000,
    );
    expect(
      once(messagesIn(toK), "id")
        .map((m) => m.id)
        .sort(),
    ).toEqual([claimed.id, answered.id, queued.id].sort());
    const late = await k.api.post(`/v1/messages/${claimed.id}/resolve?session=${k.session}`, {
      resolution: "declined",
    });
    expect(late.status).toBe(200);
    const toA2 = await gather(a, (all) => responsesIn(all).some((r) => r.in_reply_to === claimed.id));
    expect(responsesIn(toA2).find((r) => r.in_reply_to === claimed.id)?.response?.actor).toBe(
      `agent:${K}#${k.session}`,
    );
    await k.ack([claimed.id, answered.id, queued.id]);
    expect((await read(A, claimed.id)).mailbox.state).toBe("acknowledged");
  });
});

/**
 * The inbound leg over HTTP against a real web process (§8.7, §9.7, §13, §14.2): authoring and its
 * refusals, the delivered shape (schema + an independent agent-side verification against the
 * published keys), FIFO, `max`, `wait`, the visibility window and redelivery with a fresh signature,
 * ack (idempotent, note visible to the human, never redelivered), isolation between agents and
 * accounts, the mailbox depth bound, and expiry that is never written after delivery (dp-007).
 */
// covers: lib/mailbox/author.ts, lib/mailbox/drain.ts, lib/mailbox/ack.ts, lib/mailbox/expiry.ts, lib/http/routes/inbox.ts, lib/http/routes/directives.ts
import { describe, expect, it } from "vitest";
import { fixedClock, setClock } from "../lib/clock";
import { db } from "../lib/db";
import { drainMailbox } from "../lib/mailbox/drain";
import { dropDueDirectives, purgeEndedDirectives } from "../lib/mailbox/expiry";
import { inboundDirectiveSchema } from "@ma2h/protocol/inbound-message";
import { HUB_VERSION } from "@ma2h/protocol/versions";
import { createWebSession, SESSION_COOKIE_NAMES } from "../lib/principals/web-sessions";
import { DirectiveAgent } from "./support/directive-agent";
import { client } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { validateOfficial } from "./support/spec";
import { waitFor } from "./support/wait";

const A = "deploybot/dev-team";
const B = "overseer/fleet";
const C = "depth/bot";
const D = "expiry/bot";
const ONLY_OTHER = "globex/private-bot";
const VISIBILITY_S = 2;
const DEPTH = 5;

/**
 * Until the §8.7 visibility window of these entries has run out by the stamp the Hub judges it with
 * (`visible_at`, on this box's clock): from then on an un-acked one is drainable again.
 */
async function windowOver(ids: string[]): Promise<void> {
  await waitFor(
    async () => {
      const rows = await db().mailboxEntry.findMany({ where: { id: { in: ids } }, select: { visibleAt: true } });
      return rows.length === ids.length && rows.every((r) => r.visibleAt.getTime() < Date.now());
    },
    { what: `the visibility window of ${ids.join(", ")} to run out` },
  );
}

/** Until this box's clock — the Hub's — is past `iso` (an `expires_at`): the entry's time is up. */
const clockPast = (iso: string) =>
  waitFor(() => Date.now() > Date.parse(iso), { every: 10, what: `the clock past ${iso}` });

const hub = useHubFixture({
  accounts: {
    acme: {
      agents: [A, B, C, D],
      humans: [
        { handle: "alice", role: "owner" },
        { handle: "bob", role: "member" },
        { handle: "vic", role: "viewer" },
      ],
    },
    other: { agents: [A, ONLY_OTHER], humans: [{ handle: "olga", role: "owner" }] },
  },
  env: { MA2H_INBOUND_VISIBILITY_TIMEOUT_SECONDS: String(VISIBILITY_S), MA2H_INBOUND_MAILBOX_DEPTH: String(DEPTH) },
});
const acme = hub.account("acme");
const other = hub.account("other");

const human = (handle: string, account = acme) => client(hub.url, account.tokens[handle]);
const agent = (id: string, account = acme) => client(hub.url, account.keys[id]);
const author = (body: Record<string, unknown>, handle = "alice") => human(handle).post("/v1/directives", body);
const drain = (id: string, query = "", account = acme) => agent(id, account).get(`/v1/inbox${query}`);
type Entry = { directive: Record<string, any>; signature: string }; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("authoring (§13.1, §13.2)", () => {
  it("201 with a Hub id, attested from, queued; request-supplied id/from/request/state are not taken", async () => {
    const res = await author({
      to: `agent:${A}`,
      title: "Pause deploys",
      body: "Incident on prod.",
      priority: "urgent",
      tags: ["incident"],
      id: "dir_mine",
      from: "human:mallory",
      created_at: "2001-01-01T00:00:00Z",
      request: { mode: "confirm" },
      state: { x: 1 },
    });
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^dir_[0-9a-z]{26}$/);
    expect(res.body).toMatchObject({
      status: "queued",
      to: `agent:${A}`,
      from: "human:alice",
      title: "Pause deploys",
      type: "directive",
    });
    expect(res.body.created_at).not.toBe("2001-01-01T00:00:00Z");
    expect(res.body).not.toHaveProperty("request");
    expect(res.body).not.toHaveProperty("state");
    expect(res.body.delivery).toEqual({ state: "queued" });
    const read = await human("vic").get(`/v1/directives/${res.body.id}`); // a viewer reads
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  it("a member authors; a viewer and an agent credential get 403 not_authorized", async () => {
    expect((await author({ to: `agent:${A}`, title: "from bob" }, "bob")).body.from).toBe("human:bob");
    const viewer = await author({ to: `agent:${A}`, title: "nope" }, "vic");
    expect(viewer.status).toBe(403);
    expect(viewer.body.error.code).toBe("not_authorized");
    const asAgent = await agent(B).post("/v1/directives", { to: `agent:${A}`, title: "nope" });
    expect(asAgent.status).toBe(403);
    expect(asAgent.body.error.code).toBe("not_authorized");
    await ackAll(A);
  });

  it("the inbox's browser session authors too, from our own origin only (cookie writes are CSRF-checked)", async () => {
    const bob = await db().user.findUniqueOrThrow({ where: { email: "bob@acme.test" } });
    const token = `sess-${Date.now()}-directive`;
    await createWebSession(bob.id, token, new Date(Date.now() + 3_600_000));
    const post = (origin: string) =>
      fetch(`${hub.url}/v1/directives`, {
        method: "POST",
        headers: { cookie: `${SESSION_COOKIE_NAMES[1]}=${token}`, origin, "content-type": "application/json" },
        body: JSON.stringify({ to: `agent:${A}`, title: "from the browser" }),
      });
    const foreign = await post("https://evil.example");
    expect(foreign.status).toBe(403);
    const ours = await post(hub.url);
    expect(ours.status).toBe(201);
    expect((await ours.json()).from).toBe("human:bob");
    await ackAll(A);
  });

  it("unknown agent and another account's agent are the same 422 unknown_destination", async () => {
    const unknown = await author({ to: "agent:nobody/here", title: "x" });
    const foreign = await author({ to: `agent:${ONLY_OTHER}`, title: "x" });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.code).toBe("unknown_destination");
    expect(foreign.status).toBe(422);
    expect(foreign.body.error).toEqual(unknown.body.error);
  });

  it("a past expires_at is 422 invalid_field; schema errors are 400 validation_error; nothing is queued", async () => {
    const before = await db().mailboxEntry.count();
    const past = await author({ to: `agent:${A}`, title: "late", expires_at: "2020-01-01T00:00:00Z" });
    expect(past.status).toBe(422);
    expect(past.body.error.code).toBe("invalid_field");
    for (const bad of [
      { to: `agent:${A}` },
      { to: "human:alice", title: "x" },
      { to: `agent:${A}`, title: "" },
      { to: `agent:${A}`, title: "x".repeat(201) },
      { to: `agent:${A}`, title: "x", priority: "asap" },
      { to: `agent:${A}#bad`, title: "x" },
    ]) {
      const res = await author(bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.error.code).toBe("validation_error");
    }
    // Session addressing parses; a session that was never registered is unknown (§13.2).
    const session = await author({ to: `agent:${A}#sess_01abc`, title: "x" });
    expect(session.status).toBe(422);
    expect(session.body.error.code).toBe("unknown_destination");
    expect(await db().mailboxEntry.count()).toBe(before);
  });

  it("unknown and foreign directive ids read as the same 404", async () => {
    const mine = await author({ to: `agent:${B}`, title: "for B" });
    const foreign = await human("olga", other).get(`/v1/directives/${mine.body.id}`);
    const unknown = await human("alice").get("/v1/directives/dir_00000000000000000000000000");
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(foreign.body.error).toEqual(unknown.body.error);
    expect((await agent(A).get(`/v1/directives/${mine.body.id}`)).status).toBe(403);
    await ackAll(B);
  });
});

/** Drains and acks everything the agent has, so a test starts from an empty mailbox. */
async function ackAll(id: string, account = acme): Promise<void> {
  for (;;) {
    const res = await drain(id, "?max=100", account);
    const ids = (res.body.messages as Entry[]).map((e) => e.directive.id);
    if (ids.length === 0) return;
    await agent(id, account).post("/v1/inbox/ack", { ids });
  }
}

describe("drain, redelivery and ack (§8.7, dp-007)", () => {
  it("FIFO on first delivery, max caps the batch, each entry valid and verifiable by the agent", async () => {
    const ids: string[] = [];
    for (const title of ["d1", "d2", "d3"])
      ids.push((await author({ to: `agent:${A}`, title, context: [{ kind: "text", text: "ctx" }] })).body.id);
    const me = new DirectiveAgent(`agent:${A}`, `${hub.url}/.well-known/ma2h-keys`);
    const first = await drain(A, "?max=1");
    expect(first.status).toBe(200);
    expect((first.body.messages as Entry[]).map((e) => e.directive.id)).toEqual([ids[0]]);
    const rest = await drain(A);
    const entries = [...first.body.messages, ...rest.body.messages] as Entry[];
    expect(entries.map((e) => e.directive.id)).toEqual(ids);
    for (const e of entries) {
      expect(Object.keys(e).sort()).toEqual(["directive", "signature"]);
      expect(validateOfficial("inbound-message.schema.json", e.directive)).toEqual([]);
      expect(inboundDirectiveSchema.safeParse(e.directive).success).toBe(true); // and our mirror agrees
      expect(e.directive).toMatchObject({
        type: "directive",
        ma2h_version: HUB_VERSION,
        from: "human:alice",
        to: `agent:${A}`,
      });
      expect(await me.receive(e)).toMatchObject({ ok: true, id: e.directive.id });
    }
    const track = await human("alice").get(`/v1/directives/${ids[0]}`);
    expect(track.body.status).toBe("delivered");
    expect(track.body.delivery.state).toBe("delivered");
    expect(Date.parse(track.body.delivery.delivered_at)).toBeGreaterThan(Date.now() - 30_000);

    // In flight: hidden from the next drain; after the window the same ids again, freshly signed.
    expect((await drain(A)).body.messages).toEqual([]);
    await windowOver(ids);
    const again = (await drain(A)).body.messages as Entry[];
    expect(again.map((e) => e.directive.id).sort()).toEqual([...ids].sort());
    for (const e of again) {
      const before = entries.find((x) => x.directive.id === e.directive.id)!;
      expect(e.signature).not.toBe(before.signature);
      expect(e.directive).toEqual(before.directive);
      // The agent verifies the redelivery and deduplicates on id: acted on at most once.
      expect(await me.receive(e)).toEqual({ ok: false, reason: "duplicate" });
      // The exact same bytes again are a jti replay, whatever the id dedup says.
      expect(await me.receive(before)).toEqual({ ok: false, reason: "replay" });
    }
    expect((await human("alice").get(`/v1/directives/${ids[0]}`)).body.delivery.delivered_at).toBe(
      track.body.delivery.delivered_at,
    );

    // Ack with a note: consumed, acknowledged, the note readable by the human; a repeat is a 200 no-op.
    const ack = await agent(A).post("/v1/inbox/ack", { ids, note: "on it — pausing <b>now</b>" });
    expect(ack).toMatchObject({ status: 200, body: { acked: 3 } });
    expect((await agent(A).post("/v1/inbox/ack", { ids })).body).toEqual({ acked: 0 });
    const acked = await human("vic").get(`/v1/directives/${ids[1]}`);
    expect(acked.body.status).toBe("acknowledged");
    expect(acked.body.delivery).toMatchObject({ state: "acknowledged", note: "on it — pausing <b>now</b>" });
    expect(acked.body.delivery.acknowledged_at).toBeDefined();
    await windowOver(ids); // had the ack not consumed them, they would be drainable from here on
    expect((await drain(A)).body.messages).toEqual([]);
  });

  it("isolation: another agent and another account's same-named agent see nothing; their acks change nothing", async () => {
    const d = (await author({ to: `agent:${A}`, title: "only for A" })).body.id;
    expect((await drain(B)).body.messages).toEqual([]);
    expect((await drain(A, "", other)).body.messages).toEqual([]);
    expect((await agent(B).post("/v1/inbox/ack", { ids: [d] })).body).toEqual({ acked: 0 });
    expect((await agent(A, other).post("/v1/inbox/ack", { ids: [d, "dir_unknown"] })).body).toEqual({ acked: 0 });
    const mine = (await drain(A)).body.messages as Entry[];
    expect(mine.map((e) => e.directive.id)).toEqual([d]);
    expect((await agent(A).post("/v1/inbox/ack", { ids: [d, d, "dir_unknown"] })).body).toEqual({ acked: 1 });
  });

  it("?wait long-polls until a directive is authored, and returns an empty list on timeout", async () => {
    const t0 = Date.now();
    const empty = await drain(A, "?wait=1");
    expect(empty.body).toEqual({ messages: [] });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);

    const t1 = Date.now();
    const parked = drain(A, "?wait=20");
    // Parked: the drain holds a slot of A's parked-request cap (parked_counts: this Hub has no Redis).
    const row = await db().agent.findFirstOrThrow({ where: { agentId: A, account: { slug: "acme" } } });
    await waitFor(
      async () => (await db().parkedCount.findMany({ where: { key: `agent:${row.id}` } })).some((c) => c.count > 0),
      { every: 20, what: "the drain to park" },
    );
    const d = (await author({ to: `agent:${A}`, title: "wake up" })).body.id;
    const woke = await parked;
    expect((woke.body.messages as Entry[]).map((e) => e.directive.id)).toEqual([d]);
    expect(Date.now() - t1).toBeLessThan(8_000);
    // A parked drain is also woken when an in-flight directive's window lapses.
    const t2 = Date.now();
    const redelivered = await drain(A, "?wait=20");
    expect((redelivered.body.messages as Entry[]).map((e) => e.directive.id)).toEqual([d]);
    expect(Date.now() - t2).toBeLessThan(VISIBILITY_S * 1000 + 5_000);
    await agent(A).post("/v1/inbox/ack", { ids: [d] });
  });

  it("bad max / wait / ack bodies are 400 validation_error; max over max_batch is clamped", async () => {
    for (const q of ["?max=0", "?max=-1", "?max=1.5", "?max=x", "?wait=-1", "?wait=abc"]) {
      const res = await drain(A, q);
      expect(res.status, q).toBe(400);
      expect(res.body.error.code).toBe("validation_error");
    }
    expect((await drain(A, "?max=100000")).status).toBe(200);
    for (const body of [
      {},
      { ids: [] },
      { ids: "dir_x" },
      { ids: ["d"], note: "" },
      { ids: ["d"], note: "n".repeat(2001) },
    ]) {
      const res = await agent(A).post("/v1/inbox/ack", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await human("alice").get("/v1/inbox")).status).toBe(401);
    // A presented session that was never registered is unknown (§8.7.1), on drain and on ack.
    const session = await drain(A, "?session=sess_01abc");
    expect(session.status).toBe(404);
    expect(session.body.error.code).toBe("not_found");
    expect((await agent(A).post("/v1/inbox/ack?session=sess_01abc", { ids: ["dir_x"] })).status).toBe(404);
  });

  it("a drain stamps the agent's last_seen (§15.1)", async () => {
    const row = await db().agent.findFirstOrThrow({ where: { agentId: B, account: { slug: "acme" } } });
    await drain(B);
    const after = await db().agent.findFirstOrThrow({ where: { id: row.id } });
    expect(after.lastSeenAt!.getTime()).toBeGreaterThan(Date.now() - 10_000);
  });
});

describe("depth and expiry (§13.3, §14.2)", () => {
  it("a mailbox holds at most the configured un-acked directives: 429 with Retry-After, then room after an ack", async () => {
    const ids: string[] = [];
    for (let i = 0; i < DEPTH; i++) ids.push((await author({ to: `agent:${C}`, title: `fill ${i}` })).body.id);
    const over = await author({ to: `agent:${C}`, title: "one too many" });
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe("rate_limited");
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    await drain(C, "?max=1");
    await agent(C).post("/v1/inbox/ack", { ids: [ids[0]] });
    expect((await author({ to: `agent:${C}`, title: "fits again" })).status).toBe(201);
    await ackAll(C);
  });

  it("never drained → expired (no delivered_at); drained then unacked → bounced prior delivered, never expired", async () => {
    const soon = () => new Date(Date.now() + 2_500).toISOString();
    const unseenEnds = soon();
    const unseen = (await author({ to: `agent:${D}`, title: "unseen", expires_at: unseenEnds })).body.id;
    await clockPast(unseenEnds);
    const seenEnds = soon();
    const seen = (await author({ to: `agent:${D}`, title: "seen", expires_at: seenEnds })).body.id;
    expect(((await drain(D)).body.messages as Entry[]).map((e) => e.directive.id)).toEqual([seen]); // unseen is past its time
    await clockPast(seenEnds);
    expect((await drain(D)).body.messages).toEqual([]);
    const a = (await human("alice").get(`/v1/directives/${unseen}`)).body;
    expect(a.status).toBe("expired");
    expect(a.delivery).toEqual({ state: "expired" });
    const b = (await human("alice").get(`/v1/directives/${seen}`)).body;
    expect(b.status).toBe("bounced");
    expect(b.delivery.prior).toBe("delivered");
    expect(b.delivery.delivered_at).toBeDefined();
    expect((await agent(D).post("/v1/inbox/ack", { ids: [seen] })).body).toEqual({ acked: 0 }); // too late
    const events = await db().auditEvent.findMany({
      where: { event: { startsWith: "directive." } },
      select: { event: true, actor: true },
    });
    expect(events).toEqual(
      expect.arrayContaining([
        { event: "directive.expired", actor: "system:expiry" },
        { event: "directive.bounced", actor: "system:expiry" },
        { event: "directive.created", actor: "human:alice" },
        { event: "directive.acknowledged", actor: `agent:${A}` },
      ]),
    );
  });
});

describe("retention and the addressee check", () => {
  it("without expires_at a directive is dropped retention_days after it was sent: undrained → expired", async () => {
    const d = (await author({ to: `agent:${D}`, title: "kept a month" })).body.id;
    expect(await dropDueDirectives(new Date(Date.now() + 29 * 86_400_000))).toBe(0);
    expect(await dropDueDirectives(new Date(Date.now() + 30 * 86_400_000 + 60_000))).toBeGreaterThanOrEqual(1);
    expect((await human("alice").get(`/v1/directives/${d}`)).body.delivery).toEqual({ state: "expired" });
    expect((await drain(D)).body.messages).toEqual([]);
  });

  it("§13.3: an expires_at beyond retention_days wins — kept and drainable past the horizon, dropped at expires_at", async () => {
    const DAY = 86_400_000;
    const expiresAt = new Date(Date.now() + 45 * DAY);
    const res = await author({ to: `agent:${D}`, title: "kept six weeks", expires_at: expiresAt.toISOString() });
    expect(res.status).toBe(201);
    const d = res.body.id as string;
    expect((await db().mailboxEntry.findUniqueOrThrow({ where: { id: d } })).dropAt.getTime()).toBe(
      expiresAt.getTime(),
    );
    // Past the 30-day horizon neither the sweep's drop nor the purge touches it.
    const day31 = new Date(Date.now() + 31 * DAY);
    expect(await dropDueDirectives(day31, d)).toBe(0);
    expect(await dropDueDirectives(day31)).toBe(0);
    await purgeEndedDirectives(day31);
    expect((await db().mailboxEntry.findUniqueOrThrow({ where: { id: d } })).state).toBe("queued");
    // Still deliverable on day 44, on the Hub clock (§9.5) — the drain service in-process.
    const row = await db().agent.findFirstOrThrow({ where: { agentId: D, account: { slug: "acme" } } });
    const principal = {
      kind: "agent" as const,
      agentRowId: row.id,
      agentId: D,
      accountId: row.accountId,
      keyId: "test",
    };
    setClock(fixedClock(new Date(expiresAt.getTime() - DAY)));
    try {
      const drained = await drainMailbox(principal);
      const [first] = drained.messages;
      expect(first && "directive" in first ? [first.directive.id] : []).toEqual([d]);
      expect(first && "directive" in first ? first.directive.expires_at : null).toBe(expiresAt.toISOString());
    } finally {
      setClock(null);
    }
    // At expires_at it ends (drained but never acked → bounced, seen-then-orphaned, §14.2).
    expect(await dropDueDirectives(new Date(expiresAt.getTime() - 1), d)).toBe(0);
    expect(await dropDueDirectives(expiresAt, d)).toBe(1);
    expect(await db().mailboxEntry.findUniqueOrThrow({ where: { id: d } })).toMatchObject({
      state: "bounced",
      prior: "delivered",
    });
  });

  it("dp-007 (5): a validly signed directive for A, handed to B's consumer, is refused as not B's", async () => {
    const d = (await author({ to: `agent:${A}`, title: "for A only" })).body.id;
    const entry = ((await drain(A)).body.messages as Entry[]).find((e) => e.directive.id === d)!;
    const asB = new DirectiveAgent(`agent:${B}`, `${hub.url}/.well-known/ma2h-keys`);
    expect(await asB.receive(entry)).toEqual({ ok: false, reason: "not_mine" });
    const asA = new DirectiveAgent(`agent:${A}`, `${hub.url}/.well-known/ma2h-keys`);
    expect(await asA.receive(entry)).toMatchObject({ ok: true });
    await agent(A).post("/v1/inbox/ack", { ids: [d] });
  });
});

describe("capability document (§8.0)", () => {
  it("advertises inbound, ack and presence from the enforcing config, and validates", async () => {
    const cap = (await client(hub.url).get("/.well-known/ma2h")).body;
    expect(cap.inbound).toEqual({
      enabled: true,
      poll_url: `${hub.url}/v1/inbox`,
      ack_url: `${hub.url}/v1/inbox/ack`,
      max_batch: 32,
      visibility_timeout_seconds: VISIBILITY_S,
      retention_days: 30,
      signature_algs: ["ed25519"],
      webhook_supported: false,
      session_param: true,
      stream_url: `${hub.url}/v1/inbox/stream`,
      stream_max_hold_seconds: 55,
    });
    expect(cap.ack).toEqual({ enabled: true });
    expect(cap.presence).toEqual({ enabled: true, freshness_seconds: 90 });
    expect(validateOfficial("capability.schema.json", cap)).toEqual([]);
  });
});

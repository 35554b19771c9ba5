/**
 * §16.3 the terminal-session touchpoints on a running Hub, and the session clauses of dp-020:
 * a `?session=` drain and ack (own live → served and renewed; foreign or unknown → 404 alike; own
 * expired or self-closed → 410 gone; own and operator-closed → 410 session_closed_by_operator), a
 * session-less ack renewing nothing (R190); a submit naming `agent.session` (renews; 422 / 410 cases;
 * a replay from a new session keeps the original ack); resolve with `?session=` (attests
 * `agent:<id>#<sess>`, matches session-qualified `allowed_resolvers`, renews nothing — A21);
 * session-addressed directives (only that session drains them, signed with the qualified `to`;
 * 422 / 410 at authoring; bounced with `prior` when the session ends); the capability document and
 * the presence read.
 */
// covers: lib/sessions/lease.ts, lib/http/routes/inbox.ts, lib/http/routes/resolve.ts, lib/messages/addressing.ts, lib/mailbox/author.ts
import { describe, expect, it } from "vitest";
import { DirectiveAgent } from "./support/directive-agent";
import { envelope } from "./support/envelope";
import { client } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { validateOfficial } from "./support/spec";
import { waitFor, waitUntil } from "./support/wait";

const A = "deploybot/dev-team";
const B = "overseer/fleet";
const C = "stopped/bot";
const D = "directive/bot";
const E = "resolver/bot";
const F = "lapse/bot";
const G = "claim/bot";
const OTHER = "globex/bot";
const VISIBILITY_S = 2;
const MIN_TTL = 2;
const SHIP_OR_HOLD = {
  mode: "select",
  options: [
    { value: "ship", label: "Ship" },
    { value: "hold", label: "Hold" },
  ],
};
/**
 * Until this box's clock — the Hub's, which stamps `expires_at` and `last_seen` to the millisecond —
 * is past `at`: a renewal from now on stamps strictly later than anything before it, so "moved" and
 * "did not move" are both observable.
 */
const clockPast = (at: number, what = "the clock to move on") => waitFor(() => Date.now() > at, { every: 5, what });
const tick = () => clockPast(Date.now());

const hub = useHubFixture({
  accounts: {
    acme: {
      agents: [A, B, C, D, E, F, G],
      humans: [
        { handle: "alice", role: "owner" },
        { handle: "bob", role: "member" },
      ],
    },
    globex: { agents: [OTHER], humans: [{ handle: "gina", role: "owner" }] },
  },
  env: { MA2H_SESSION_MIN_TTL_SECONDS: String(MIN_TTL), MA2H_INBOUND_VISIBILITY_TIMEOUT_SECONDS: String(VISIBILITY_S) },
});
const acme = hub.account("acme");
const globex = hub.account("globex");
const agent = (id: string, account = acme) => client(hub.url, account.keys[id]);
const human = (handle: string, account = acme) => client(hub.url, account.tokens[handle]);

async function register(id: string, body: Record<string, unknown> = {}, account = acme) {
  const res = await agent(id, account).post("/v1/sessions", body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.session as { id: string; expires_at: string; ttl_seconds: number };
}
const readOwn = async (id: string, sessionId: string) =>
  (await agent(id).get(`/v1/sessions/${sessionId}`)).body.session;
const codeOf = (res: { status: number; body: { error?: { code?: string } } }) => [res.status, res.body?.error?.code];

describe("presenting a session: drain and ack (§8.7.1, §16.3, dp-020)", () => {
  it("own live: 200 and the lease and last_seen move; a session-less ack renews nothing", async () => {
    const s = await register(A, { ttl_seconds: 30 });
    await tick();
    const drained = await agent(A).get(`/v1/inbox?session=${s.id}`);
    expect(drained.status).toBe(200);
    const after = await readOwn(A, s.id);
    expect(Date.parse(after.expires_at)).toBeGreaterThan(Date.parse(s.expires_at));
    expect(after.last_seen).toBeDefined();
    await clockPast(Date.parse(after.last_seen));
    // R190: an ack without ?session= attributes to no session.
    expect((await agent(A).post("/v1/inbox/ack", { ids: ["dir_none"] })).status).toBe(200);
    expect((await readOwn(A, s.id)).last_seen).toBe(after.last_seen);
    // An ack presenting it renews it.
    expect((await agent(A).post(`/v1/inbox/ack?session=${s.id}`, { ids: ["dir_none"] })).status).toBe(200);
    const acked = await readOwn(A, s.id);
    expect(Date.parse(acked.last_seen)).toBeGreaterThan(Date.parse(after.last_seen));
    expect(Date.parse(acked.expires_at)).toBeGreaterThan(Date.parse(after.expires_at));
  });

  it("foreign and unknown alike: 404 with the same body shape, on drain and ack", async () => {
    const sibling = await register(B);
    const foreign = await register(OTHER, {}, globex);
    const unknown = "sess_0000000000000000000000000";
    for (const id of [sibling.id, foreign.id, unknown]) {
      const d = await agent(A).get(`/v1/inbox?session=${id}`);
      expect(codeOf(d)).toEqual([404, "not_found"]);
      expect(Object.keys(d.body)).toEqual(["error"]);
      const a = await agent(A).post(`/v1/inbox/ack?session=${id}`, { ids: ["dir_none"] });
      expect(codeOf(a)).toEqual([404, "not_found"]);
    }
    // The sibling's session was not touched by those attempts.
    expect((await readOwn(B, sibling.id)).state).toBe("active");
  });

  it("own self-closed and own expired: 410 gone; the expired one ends on sight and never revives", async () => {
    const closed = await register(A);
    expect((await agent(A).delete(`/v1/sessions/${closed.id}`)).body.session.state).toBe("closed");
    expect(codeOf(await agent(A).get(`/v1/inbox?session=${closed.id}`))).toEqual([410, "gone"]);
    expect(codeOf(await agent(A).post(`/v1/inbox/ack?session=${closed.id}`, { ids: ["x"] }))).toEqual([410, "gone"]);

    const lapsing = await register(F, { ttl_seconds: MIN_TTL });
    // The lease's end by the clock the Hub judges it with; then presenting the session finds it lapsed.
    await clockPast(Date.parse(lapsing.expires_at), "the lease to lapse");
    expect(codeOf(await agent(F).get(`/v1/inbox?session=${lapsing.id}`))).toEqual([410, "gone"]);
    const read = await readOwn(F, lapsing.id);
    expect(read.state).toBe("expired");
    expect(read.closed_at).toBe(read.expires_at); // ended when the lease lapsed
    expect(read).not.toHaveProperty("closed_by_operator");
    expect(codeOf(await agent(F).post(`/v1/inbox/ack?session=${lapsing.id}`, { ids: ["x"] }))).toEqual([410, "gone"]);
  });

  it("operator-closed: 410 session_closed_by_operator at drain, ack, resolve and submit", async () => {
    const s = await register(C);
    const closed = await human("alice").delete(`/v1/sessions/${s.id}`);
    expect(closed.status).toBe(200);
    expect(closed.body.session).toMatchObject({ state: "closed", closed_by_operator: true });
    expect(codeOf(await agent(C).get(`/v1/inbox?session=${s.id}`))).toEqual([410, "session_closed_by_operator"]);
    expect(codeOf(await agent(C).post(`/v1/inbox/ack?session=${s.id}`, { ids: ["x"] }))).toEqual([
      410,
      "session_closed_by_operator",
    ]);
    const submitted = await agent(C).post(
      "/v1/messages",
      envelope("notify", C, { agent: { id: C, run_id: "r1", runtime: "cli", session: s.id } }),
    );
    expect(codeOf(submitted)).toEqual([410, "session_closed_by_operator"]);
    const resolved = await agent(C).post(`/v1/messages/msg_nope/resolve?session=${s.id}`, { resolution: "declined" });
    expect(codeOf(resolved)).toEqual([410, "session_closed_by_operator"]);
    // And the principal is stopped (§16.4.1): registration is 403 with the same code.
    expect(codeOf(await agent(C).post("/v1/sessions", {}))).toEqual([403, "session_closed_by_operator"]);
  });
});

describe("a submit naming agent.session (§4.1)", () => {
  const withSession = (id: string, session: string, type: "notify" | "ask" = "notify", extra = {}) =>
    envelope(type, id, { agent: { id, run_id: `r_${Date.now()}`, runtime: "cli", session }, ...extra });

  it("own live: 202 and renewed; unknown or foreign: 422; own closed: 410 destination_gone", async () => {
    const s = await register(A, { ttl_seconds: 30 });
    await tick();
    const ok = await agent(A).post("/v1/messages", withSession(A, s.id));
    expect(ok.status).toBe(202);
    expect(Date.parse((await readOwn(A, s.id)).expires_at)).toBeGreaterThan(Date.parse(s.expires_at));
    const sibling = await register(B);
    for (const id of [sibling.id, "sess_unknown000000000000000000"]) {
      expect(codeOf(await agent(A).post("/v1/messages", withSession(A, id)))).toEqual([422, "invalid_field"]);
    }
    await agent(A).delete(`/v1/sessions/${s.id}`);
    expect(codeOf(await agent(A).post("/v1/messages", withSession(A, s.id)))).toEqual([410, "destination_gone"]);
  });

  it("a replay from a new session returns the original ack, with the original session stored", async () => {
    const first = await register(A);
    const body = withSession(A, first.id, "ask", { idempotency_key: `k-${Date.now()}` });
    const created = await agent(A).post("/v1/messages", body);
    expect(created.status).toBe(202);
    await agent(A).delete(`/v1/sessions/${first.id}`); // the run crashed; a new one retries
    const second = await register(A);
    const retry = { ...body, agent: { ...(body.agent as object), session: second.id, run_id: "r_retry" } };
    const replayed = await agent(A).post("/v1/messages", retry);
    expect(replayed.status).toBe(202);
    expect(replayed.body.id).toBe(created.body.id);
    const read = await agent(A).get(`/v1/messages/${created.body.id}`);
    expect(read.body.agent.session).toBe(first.id);
    // Even a retry still naming the ended session gets its original ack: the replay comes first (§8.1).
    const stale = await agent(A).post("/v1/messages", body);
    expect([stale.status, stale.body.id]).toEqual([202, created.body.id]);
  });
});

describe("resolve with ?session= (§8.8, §9.1)", () => {
  it("attests agent:<id>#<sess>, matches a session-qualified allowed_resolvers entry only for that session, renews nothing", async () => {
    const mine = await register(E, { ttl_seconds: 30 });
    const otherOfMine = await register(E, { ttl_seconds: 30 });
    const ask = envelope("ask", A, { request: { ...SHIP_OR_HOLD, allowed_resolvers: [`agent:${E}#${mine.id}`] } });
    const submitted = await agent(A).post("/v1/messages", ask);
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
    const id = submitted.body.id as string;
    // Another session of the same principal does not match the qualified entry (a non-submitter: 404).
    const wrong = await agent(E).post(`/v1/messages/${id}/resolve?session=${otherOfMine.id}`, {
      resolution: "answered",
      value: "ship",
    });
    expect(wrong.status).toBe(404);
    // Without a session, the qualified entry does not match either.
    expect((await agent(E).post(`/v1/messages/${id}/resolve`, { resolution: "answered", value: "ship" })).status).toBe(
      404,
    );
    const before = await readOwn(E, mine.id);
    await clockPast(Math.max(Date.parse(before.last_seen ?? "0"), Date.now()));
    const res = await agent(E).post(`/v1/messages/${id}/resolve?session=${mine.id}`, {
      resolution: "answered",
      value: "ship",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const read = await agent(A).get(`/v1/messages/${id}`);
    expect(read.body.response.response.actor).toBe(`agent:${E}#${mine.id}`);
    // Choice A21: resolve is not on the §16.2 renewal list.
    const after = await readOwn(E, mine.id);
    expect(after.expires_at).toBe(before.expires_at);
    expect(after.last_seen).toBe(before.last_seen);
  });

  it("a principal-form entry matches the principal under any session", async () => {
    const s = await register(E);
    const ask = envelope("ask", A, { request: { ...SHIP_OR_HOLD, allowed_resolvers: [`agent:${E}`] } });
    const id = (await agent(A).post("/v1/messages", ask)).body.id as string;
    const res = await agent(E).post(`/v1/messages/${id}/resolve?session=${s.id}`, { resolution: "declined" });
    expect(res.status).toBe(200);
    expect((await agent(A).get(`/v1/messages/${id}`)).body.response.response.actor).toBe(`agent:${E}#${s.id}`);
  });
});

describe("session-addressed directives (§13.2, §14.2)", () => {
  const author = (to: string, title = "do it") => human("alice").post("/v1/directives", { to, title });

  it("only that session drains it, signed with the qualified to; principal mail reaches both kinds of drain", async () => {
    const s1 = await register(D, { ttl_seconds: 60 });
    const s2 = await register(D, { ttl_seconds: 60 });
    const addressed = await author(`agent:${D}#${s1.id}`, "for s1 only");
    expect(addressed.status).toBe(201);
    expect(addressed.body.to).toBe(`agent:${D}#${s1.id}`);
    // Neither a session-less drain nor a sibling session sees it.
    expect((await agent(D).get("/v1/inbox")).body.messages).toEqual([]);
    expect((await agent(D).get(`/v1/inbox?session=${s2.id}`)).body.messages).toEqual([]);
    const got = await agent(D).get(`/v1/inbox?session=${s1.id}`);
    expect(got.body.messages.map((m: { directive: { id: string } }) => m.directive.id)).toEqual([addressed.body.id]);
    const verifier = new DirectiveAgent(`agent:${D}#${s1.id}`, `${hub.url}/.well-known/ma2h-keys`);
    expect(await verifier.receive(got.body.messages[0])).toMatchObject({ ok: true });
    expect(validateOfficial("inbound-message.schema.json", got.body.messages[0].directive)).toEqual([]);
    // Principal-addressed mail: a session drain gets it too.
    const general = await author(`agent:${D}`, "for anyone");
    const viaSession = await agent(D).get(`/v1/inbox?session=${s2.id}`);
    expect(viaSession.body.messages.map((m: { directive: { id: string } }) => m.directive.id)).toEqual([
      general.body.id,
    ]);
  });

  it("authoring: unknown or another agent's session 422 unknown_destination; an ended one 410 destination_gone", async () => {
    const sibling = await register(B);
    expect(codeOf(await author(`agent:${D}#${sibling.id}`))).toEqual([422, "unknown_destination"]);
    expect(codeOf(await author(`agent:${D}#sess_unknown00000000000000000`))).toEqual([422, "unknown_destination"]);
    const ended = await register(D);
    await agent(D).delete(`/v1/sessions/${ended.id}`);
    expect(codeOf(await author(`agent:${D}#${ended.id}`))).toEqual([410, "destination_gone"]);
  });

  it("when the session ends, its un-acked directives bounce with prior queued or delivered, stamped once", async () => {
    const s = await register(D, { ttl_seconds: 60 });
    const seen = await author(`agent:${D}#${s.id}`, "seen then orphaned");
    const drained = await agent(D).get(`/v1/inbox?session=${s.id}`);
    expect(drained.body.messages).toHaveLength(1);
    const unseen = await author(`agent:${D}#${s.id}`, "never seen");
    const acked = await author(`agent:${D}#${s.id}`, "acked");
    await agent(D).get(`/v1/inbox?session=${s.id}`); // drains unseen and acked
    await agent(D).post(`/v1/inbox/ack?session=${s.id}`, { ids: [acked.body.id] });
    // `unseen` was drained by the second call; author one more that stays queued.
    const queued = await author(`agent:${D}#${s.id}`, "still queued");
    expect((await agent(D).delete(`/v1/sessions/${s.id}`)).body.session.state).toBe("closed");
    const track = async (id: string) => (await human("alice").get(`/v1/directives/${id}`)).body;
    expect((await track(seen.body.id)).delivery).toMatchObject({ state: "bounced", prior: "delivered" });
    expect((await track(unseen.body.id)).delivery).toMatchObject({ state: "bounced", prior: "delivered" });
    expect((await track(queued.body.id)).delivery).toMatchObject({ state: "bounced", prior: "queued" });
    expect((await track(acked.body.id)).delivery.state).toBe("acknowledged");
  });
});

describe("principal-addressed mail across sessions (dp-020 (2), (6), (7))", () => {
  const author = (title: string) => human("alice").post("/v1/directives", { to: `agent:${G}`, title });
  const ids = (res: { body: { messages: { directive: { id: string } }[] } }) =>
    res.body.messages.map((m) => m.directive.id);

  it("first claim wins: concurrent session drains hand each entry to exactly one session", async () => {
    const sessions = await Promise.all([register(G), register(G), register(G)]);
    const authored: string[] = [];
    for (let i = 0; i < 12; i++) authored.push((await author(`job ${i}`)).body.id);
    const drains = await Promise.all(
      sessions.flatMap((s) => [1, 2].map(() => agent(G).get(`/v1/inbox?session=${s.id}&max=5`))),
    );
    const got = drains.flatMap(ids);
    expect(new Set(got).size).toBe(got.length); // nobody got an entry twice
    expect([...got].sort()).toEqual([...authored].sort());
    await agent(G).post("/v1/inbox/ack", { ids: authored });
  });

  it("a claimant that dies is rescued by a sibling after the window; the ack is the credential's", async () => {
    const [dying, sibling] = await Promise.all([register(G), register(G)]);
    const d = (await author("rescue me")).body.id as string;
    expect(ids(await agent(G).get(`/v1/inbox?session=${dying.id}`))).toEqual([d]);
    expect(ids(await agent(G).get(`/v1/inbox?session=${sibling.id}`))).toEqual([]); // in flight
    await agent(G).delete(`/v1/sessions/${dying.id}`); // principal mail does not bounce with it
    // The sibling drains until the window lets it have the entry.
    const rescued = await waitUntil(
      async () => ids(await agent(G).get(`/v1/inbox?session=${sibling.id}`)),
      (got) => got.length > 0,
      { what: "the sibling's rescue after the visibility window" },
    );
    expect(rescued).toEqual([d]);
    const track = (await human("alice").get(`/v1/directives/${d}`)).body;
    expect(track.delivery.state).toBe("delivered");
    const acked = await agent(G).post(`/v1/inbox/ack?session=${sibling.id}`, { ids: [d] });
    expect(acked.body).toEqual({ acked: 1 });
  });
});

describe("what the Hub advertises and shows", () => {
  it("the capability document advertises sessions with the hard stop and the session drain, valid against the schema", async () => {
    const doc = (await client(hub.url).get("/.well-known/ma2h")).body;
    expect(validateOfficial("capability.schema.json", doc)).toEqual([]);
    expect(doc.sessions).toMatchObject({
      enabled: true,
      min_ttl_seconds: MIN_TTL,
      max_ttl_seconds: 3600,
      max_live_per_agent: 32,
      agent_list_visibility: true,
      terminal_retention_seconds: 86400,
      operator_hard_stop: true,
    });
    expect(doc.inbound.session_param).toBe(true);
    // §8.0: `inter_agent` only together with `ack` and `sessions`.
    expect(doc.inter_agent.enabled).toBe(true);
    expect(doc.ack.enabled).toBe(true);
  });

  it("the owner's presence read lists the agent's sessions; an unknown agent reads the same empty way", async () => {
    const s = await register(B, { label: "presence check" });
    const read = await human("alice").get(`/v1/agents/${encodeURIComponent(B)}/presence`);
    expect(read.status).toBe(200);
    const listed = read.body.sessions.find((x: { id: string }) => x.id === s.id);
    expect(listed).toMatchObject({ id: s.id, state: "active", expires_at: s.expires_at });
    expect(listed.last_seen).toBeDefined();
    const unknown = await human("alice").get(`/v1/agents/${encodeURIComponent("nobody/here")}/presence`);
    expect(unknown.body).toMatchObject({ state: "unknown", sessions: [] });
    // An agent credential learns nothing here.
    expect((await agent(B).get(`/v1/agents/${encodeURIComponent(B)}/presence`)).status).toBe(403);
  });
});

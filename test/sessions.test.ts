/**
 * §16 sessions on the running Hub: registration (R217–R220, the credential gate), reads
 * under the visibility rules (R229–R232), and closes by the owner and by an operator (R222, R227,
 * R228, the §16.4 kill-switch recording the stop of §16.4.1). Two web processes on one database:
 * the first at the default deployment ceiling (agents may read each other's sessions where the
 * account grants it), the second with the ceiling off. Small lease bounds so an expiry is seconds away.
 * The hard stop, the races and durability are in test/session-stop.test.ts; choice A22 in
 * test/session-liveness.test.ts.
 */
// covers: lib/sessions/register.ts, lib/sessions/read.ts, lib/sessions/access.ts, lib/sessions/end.ts, lib/http/routes/sessions.ts, lib/sessions/record.ts
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { startHub, type HubProcess } from "./support/hub";
import { provisionAccount, type Provisioned } from "./support/provision";
import { call, envelopeErrors, listErrors, officialErrors, type Reply } from "./support/session-kit";
import { useTestDatabase } from "./support/test-database";
import { waitFor } from "./support/wait";

const database = useTestDatabase();
let acme: Provisioned;
let globex: Provisioned;
let webs: HubProcess[] = [];

const MAX_LIVE = 3;
const env = {
  MA2H_SESSION_MIN_TTL_SECONDS: "2",
  MA2H_SESSION_MAX_TTL_SECONDS: "3600",
  MA2H_SESSION_MAX_LIVE_PER_AGENT: String(MAX_LIVE),
  MA2H_SESSION_TERMINAL_RETENTION_SECONDS: "120",
};

// Each test works on agents of its own, so one test's live sessions never count against another's cap.
const AGENTS = {
  reg: "deploybot/dev-team",
  clamp: "clamp/bot",
  cap: "cap/bot",
  flood: "flood/bot",
  hash: "bad#id",
  revoked: "revoked/bot",
  lister: "lister/bot",
  sibling: "sibling/bot",
  stranger: "stranger/bot",
  seenA: "seen/a",
  seenB: "seen/b",
  closer: "closer/bot",
  lapser: "lapser/bot",
  victim: "victim/bot",
  guarded: "guarded/bot",
} as const;

const web = (i = 0) => (webs[i % webs.length] as HubProcess).url;
const key = (id: string) => acme.keys[id] as string;
const pat = (handle: string) => (acme.tokens[handle] ?? globex.tokens[handle]) as string;

beforeAll(async () => {
  acme = await provisionAccount("acme", Object.values(AGENTS), [
    { handle: "olga", role: "owner" },
    { handle: "ada", role: "admin" },
    { handle: "mia", role: "member" },
    { handle: "vic", role: "viewer" },
  ]);
  // Another account with a same-named agent and its own owner: never sees acme's sessions.
  globex = await provisionAccount("globex", [AGENTS.reg], [{ handle: "gus", role: "owner" }]);
  webs = await Promise.all([
    startHub({ databaseUrl: database.url, env }),
    startHub({ databaseUrl: database.url, env: { ...env, MA2H_SESSION_AGENT_LIST_VISIBILITY: "0" } }),
  ]);
});

afterAll(async () => {
  await Promise.all(webs.map((w) => w.stop()));
});

async function register(agent: string, body?: unknown, via = 0): Promise<Reply> {
  return call(web(via), "POST", "/v1/sessions", key(agent), body);
}

/** A registration that must succeed; its session resource. */
async function registered(agent: string, body?: unknown, via = 0): Promise<Record<string, any>> {
  const res = await register(agent, body, via);
  expect(res.status, res.text).toBe(201);
  expect(envelopeErrors(res.body)).toEqual([]);
  return res.body.session;
}

const lifetime = (s: Record<string, any>) => Date.parse(s.expires_at) - Date.parse(s.created_at);

async function acmeId(): Promise<string> {
  return (await db().account.findUniqueOrThrow({ where: { slug: "acme" } })).id;
}

async function setGrant(on: boolean): Promise<void> {
  await db().account.update({ where: { slug: "acme" }, data: { agentSessionVisibility: on } });
}

describe("registration (§16.1)", () => {
  it("an empty body → 201 {session}: valid against the official sessionEnvelope and our mirror, a Hub-minted sess_ id, the default TTL", async () => {
    const res = await call(web(), "POST", "/v1/sessions", key(AGENTS.reg)); // no body at all
    expect(res.status, res.text).toBe(201);
    expect(officialErrors("sessionEnvelope", res.body)).toEqual([]);
    expect(envelopeErrors(res.body)).toEqual([]);
    const s = res.body.session;
    expect(s).toMatchObject({ agent_id: AGENTS.reg, state: "active", ttl_seconds: 300 });
    expect(s.id).toMatch(/^sess_[A-Za-z0-9_-]+$/);
    expect(lifetime(s)).toBe(300_000);
    expect(Math.abs(Date.parse(s.created_at) - Date.now())).toBeLessThan(60_000);
    expect(s).not.toHaveProperty("closed_by_operator");
    expect(s).not.toHaveProperty("closed_at");

    // `{}` is the same request; an id the client tries to choose is not taken (the Hub mints).
    const second = await registered(AGENTS.reg, { id: "sess_client_chosen", label: "dev-team · #612" });
    expect(second.id).not.toBe("sess_client_chosen");
    expect(second.id).not.toBe(s.id);
    expect(second.label).toBe("dev-team · #612");
    const row = await db().agentSession.findUniqueOrThrow({ where: { id: s.id }, include: { agent: true } });
    expect([row.agent.agentId, row.state, row.accountId]).toEqual([AGENTS.reg, "active", await acmeId()]);
    // The registration is audited as the agent.
    const audit = await db().auditEvent.findFirst({
      where: { event: "session.registered", actor: `agent:${AGENTS.reg}` },
    });
    expect(audit).not.toBeNull();
  });

  it("the optional fields come back as sent", async () => {
    const body = {
      run_id: "run_01HTEST",
      label: "dev-team · issue #612",
      kind: "worker",
      project: "web-app",
      labels: { repo: "acme/web-app" },
      ttl_seconds: 900,
    };
    const s = await registered(AGENTS.reg, body);
    expect(s).toMatchObject({ ...body, agent_id: AGENTS.reg });
    expect(lifetime(s)).toBe(900_000);
  });

  it("ttl_seconds is clamped both ways, and expires_at = created_at + the clamped TTL (R218)", async () => {
    const high = await registered(AGENTS.clamp, { ttl_seconds: 10_000_000 });
    expect(high.ttl_seconds).toBe(3600);
    expect(lifetime(high)).toBe(3_600_000);
    const low = await registered(AGENTS.clamp, { ttl_seconds: 1 }, 1);
    expect(low.ttl_seconds).toBe(2);
    expect(lifetime(low)).toBe(2_000);
    const within = await registered(AGENTS.clamp, { ttl_seconds: 45 });
    expect([within.ttl_seconds, lifetime(within)]).toEqual([45, 45_000]);
    // Not a number of seconds at all: refused, not clamped.
    for (const bad of [0, -5, 2.5, "60"]) {
      const res = await register(AGENTS.clamp, { ttl_seconds: bad });
      expect([bad, res.status]).toEqual([bad, 400]);
    }
  });

  it("over max_live_per_agent → 429 rate_limited with Retry-After; closing one frees a slot (R219)", async () => {
    const held: Record<string, any>[] = [];
    for (let i = 0; i < MAX_LIVE; i++) held.push(await registered(AGENTS.cap, { ttl_seconds: 600 }, i));
    const over = await register(AGENTS.cap);
    expect(over.status, over.text).toBe(429);
    expect(over.body.error.code).toBe("rate_limited");
    const retry = Number(over.headers.get("retry-after"));
    expect(Number.isInteger(retry)).toBe(true);
    // The earliest live lease lapses in about 600 s: the wait names it (1 ≤ it ≤ 600).
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(600);
    expect(await db().agentSession.count({ where: { agent: { agentId: AGENTS.cap }, state: "active" } })).toBe(
      MAX_LIVE,
    );

    const closed = await call(web(), "DELETE", `/v1/sessions/${held[0]?.id}`, key(AGENTS.cap));
    expect(closed.status).toBe(200);
    await registered(AGENTS.cap);
    expect((await register(AGENTS.cap)).status).toBe(429);
  });

  it("the cap holds under a flood split over both webs: exactly max_live_per_agent registrations win", async () => {
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => register(AGENTS.flood, {}, i % 2)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(MAX_LIVE);
    expect(statuses.filter((s) => s === 429)).toHaveLength(12 - MAX_LIVE);
    expect(await db().agentSession.count({ where: { agent: { agentId: AGENTS.flood } } })).toBe(MAX_LIVE);
  });

  it("an agent whose id contains '#' cannot register → 422, and nothing is stored (R220)", async () => {
    const res = await register(AGENTS.hash);
    expect(res.status, res.text).toBe(422);
    expect(res.body.error.code).toBe("invalid_field");
    expect(await db().agentSession.count({ where: { agent: { agentId: AGENTS.hash } } })).toBe(0);
  });

  it("only an agent credential registers: none, a PAT, or garbage → 401", async () => {
    for (const token of [undefined, pat("olga"), "not-a-credential"]) {
      const res = await call(web(), "POST", "/v1/sessions", token, {});
      expect(res.status, res.text).toBe(401);
      expect(res.body.error.code).toBe("unauthenticated");
    }
  });

  it("a key revoked right after use is refused at once: registration reads no credential cache", async () => {
    // Warm every cache the web has for this key: a read and a registration.
    expect((await call(web(), "GET", "/v1/sessions", key(AGENTS.revoked))).status).toBe(200);
    await registered(AGENTS.revoked);
    // Revoked behind the Hub's back: no NOTIFY, so no process's credential cache hears of it.
    await db().$executeRaw`
      UPDATE api_keys SET revoked_at = now()
       WHERE agent_row_id = (SELECT id FROM agents WHERE agent_id = ${AGENTS.revoked})`;
    const res = await register(AGENTS.revoked);
    expect(res.status, res.text).toBe(401);
    expect(res.body.error.code).toBe("unauthenticated");
    expect(await db().agentSession.count({ where: { agent: { agentId: AGENTS.revoked } } })).toBe(1);
  });
});

describe("reads (§16.4)", () => {
  it("an agent's own list has its live and terminal sessions, scope own (R229, R231)", async () => {
    const [m0, m1, m2] = [
      await registered(AGENTS.lister),
      await registered(AGENTS.lister),
      await registered(AGENTS.lister),
    ];
    const theirs = await registered(AGENTS.sibling);
    expect((await call(web(), "DELETE", `/v1/sessions/${m1.id}`, key(AGENTS.lister))).status).toBe(200);

    const list = await call(web(), "GET", "/v1/sessions", key(AGENTS.lister));
    expect(list.status).toBe(200);
    expect(listErrors(list.body)).toEqual([]);
    expect(list.body.scope).toBe("own");
    const byId = new Map(list.body.sessions.map((s: any) => [s.id, s.state]));
    expect(byId).toEqual(
      new Map([
        [m0.id, "active"],
        [m1.id, "closed"],
        [m2.id, "active"],
      ]),
    );
    expect(byId.has(theirs.id)).toBe(false);
    // A read of one of its own, closed or live.
    const one = await call(web(1), "GET", `/v1/sessions/${m1.id}`, key(AGENTS.lister));
    expect(one.status).toBe(200);
    expect(envelopeErrors(one.body)).toEqual([]);
    expect(one.body.session).toMatchObject({ id: m1.id, state: "closed", agent_id: AGENTS.lister });
  });

  it("with the account's grant a sibling's sessions are listed and readable (scope account); the ceiling off ignores the grant", async () => {
    const mine = await registered(AGENTS.lister);
    const theirs = await registered(AGENTS.sibling);
    try {
      await setGrant(true);
      const wide = await call(web(0), "GET", "/v1/sessions", key(AGENTS.lister));
      expect(listErrors(wide.body)).toEqual([]);
      expect(wide.body.scope).toBe("account");
      const ids = wide.body.sessions.map((s: any) => s.id);
      expect(ids).toEqual(expect.arrayContaining([mine.id, theirs.id]));
      expect(new Set(wide.body.sessions.map((s: any) => s.agent_id)).has(AGENTS.sibling)).toBe(true);
      const read = await call(web(0), "GET", `/v1/sessions/${theirs.id}`, key(AGENTS.lister));
      expect(read.status).toBe(200);
      expect(read.body.session).toMatchObject({
        id: theirs.id,
        agent_id: AGENTS.sibling,
        last_seen: expect.any(String),
      });
      // Never another account's: globex's same-named agent's session is not in acme's wide list.
      const foreign = (await call(web(), "POST", "/v1/sessions", globex.keys[AGENTS.reg])).body.session;
      const wideAgain = await call(web(0), "GET", "/v1/sessions", key(AGENTS.lister));
      expect(wideAgain.body.sessions.map((s: any) => s.id)).not.toContain(foreign.id);
      expect((await call(web(0), "GET", `/v1/sessions/${foreign.id}`, key(AGENTS.lister))).status).toBe(404);
      // The grant lets siblings read, never close: a sibling's DELETE is still 404.
      expect((await call(web(0), "DELETE", `/v1/sessions/${theirs.id}`, key(AGENTS.lister))).status).toBe(404);

      // The second web has the deployment ceiling off: the same grant is ignored there.
      const narrow = await call(web(1), "GET", "/v1/sessions", key(AGENTS.lister));
      expect(narrow.body.scope).toBe("own");
      expect(narrow.body.sessions.every((s: any) => s.agent_id === AGENTS.lister)).toBe(true);
      expect(narrow.body.sessions.map((s: any) => s.id)).toContain(mine.id);
      expect((await call(web(1), "GET", `/v1/sessions/${theirs.id}`, key(AGENTS.lister))).status).toBe(404);
    } finally {
      await setGrant(false);
    }
    // Grant withdrawn: back to own on the first web too.
    const after = await call(web(0), "GET", "/v1/sessions", key(AGENTS.lister));
    expect(after.body.scope).toBe("own");
    expect(after.body.sessions.map((s: any) => s.id)).not.toContain(theirs.id);
  });

  it("another agent's or another account's session id is 404, the same answer as an id that never existed (R230)", async () => {
    const theirs = await registered(AGENTS.stranger);
    const foreign = (await call(web(), "POST", "/v1/sessions", globex.keys[AGENTS.reg])).body.session;
    const unknown = `sess_${"Z".repeat(theirs.id.length - 5)}`;
    const answer = async (id: string, method: "GET" | "DELETE", via: number) => {
      const res = await call(web(via), method, `/v1/sessions/${id}`, key(AGENTS.lister));
      // The message names the id asked for; with it swapped for a placeholder, the bytes agree.
      return { status: res.status, text: res.text.split(id).join("<id>") };
    };
    for (const method of ["GET", "DELETE"] as const) {
      for (const via of [0, 1]) {
        const none = await answer(unknown, method, via);
        expect(none.status).toBe(404);
        expect(JSON.parse(none.text).error.code).toBe("not_found");
        expect(await answer(theirs.id, method, via)).toEqual(none);
        expect(await answer(foreign.id, method, via)).toEqual(none);
      }
    }
    // Nothing happened to either.
    for (const id of [theirs.id, foreign.id])
      expect((await db().agentSession.findUniqueOrThrow({ where: { id } })).state).toBe("active");
  });

  it("a person with any seat reads every session of the account; another account's person sees none of them (R232)", async () => {
    const a = await registered(AGENTS.seenA);
    const b = await registered(AGENTS.seenB);
    for (const handle of ["vic", "mia", "olga"]) {
      const list = await call(web(1), "GET", "/v1/sessions", pat(handle));
      expect(list.status).toBe(200);
      expect(listErrors(list.body)).toEqual([]);
      expect(list.body.scope).toBe("account");
      expect(list.body.sessions.map((s: any) => s.id)).toEqual(expect.arrayContaining([a.id, b.id]));
      const one = await call(web(0), "GET", `/v1/sessions/${b.id}`, pat(handle));
      expect(one.status).toBe(200);
      expect(one.body.session).toMatchObject({ id: b.id, agent_id: AGENTS.seenB, last_seen: b.last_seen });
    }
    // By agent, within the account.
    const filtered = await call(web(), "GET", `/v1/sessions?agent_id=${encodeURIComponent(AGENTS.seenB)}`, pat("vic"));
    expect(filtered.body.sessions.map((s: any) => s.id)).toEqual([b.id]);

    const gus = await call(web(), "GET", "/v1/sessions", pat("gus"));
    expect(gus.status).toBe(200);
    const seen = gus.body.sessions.map((s: any) => s.id);
    expect(seen).not.toContain(a.id);
    expect(seen).not.toContain(b.id);
    expect(gus.body.sessions.every((s: any) => s.agent_id === AGENTS.reg)).toBe(true);
    expect((await call(web(), "GET", `/v1/sessions/${a.id}`, pat("gus"))).status).toBe(404);
  });
});

describe("closing (§16.3, §16.4)", () => {
  it("the owner's DELETE → closed without any operator marker; a second DELETE answers the same (R222)", async () => {
    const s = await registered(AGENTS.closer);
    const first = await call(web(0), "DELETE", `/v1/sessions/${s.id}`, key(AGENTS.closer));
    expect(first.status, first.text).toBe(200);
    expect(envelopeErrors(first.body)).toEqual([]);
    expect(first.body.session).toMatchObject({ id: s.id, state: "closed", closed_at: expect.any(String) });
    expect(first.body.session).not.toHaveProperty("closed_by_operator");
    expect(first.text).not.toContain("closed_by_operator");
    const second = await call(web(1), "DELETE", `/v1/sessions/${s.id}`, key(AGENTS.closer));
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    const events = await db().auditEvent.findMany({
      where: {
        event: { in: ["session.closed", "session.expired", "agent.stopped"] },
        detail: { path: ["session_id"], equals: s.id },
      },
    });
    expect(events.map((e) => [e.event, e.actor])).toEqual([["session.closed", `agent:${AGENTS.closer}`]]);
    // A self-close records no stop: the agent registers again at once.
    expect(await db().agentStop.count({ where: { agent: { agentId: AGENTS.closer } } })).toBe(0);
    await registered(AGENTS.closer);
  });

  it("a DELETE of a session whose lease lapsed leaves it expired, at its expires_at (R222)", async () => {
    const s = await registered(AGENTS.lapser, { ttl_seconds: 2 });
    // The lease's end by this box's clock, the Hub's: the DELETE then finds it lapsed.
    await waitFor(() => Date.now() > Date.parse(s.expires_at), { every: 10, what: "the lease to lapse" });
    const res = await call(web(0), "DELETE", `/v1/sessions/${s.id}`, key(AGENTS.lapser));
    expect(res.status, res.text).toBe(200);
    expect(res.body.session).toMatchObject({ id: s.id, state: "expired", closed_at: s.expires_at });
    expect(res.body.session).not.toHaveProperty("closed_by_operator");
    expect((await call(web(1), "DELETE", `/v1/sessions/${s.id}`, key(AGENTS.lapser))).body).toEqual(res.body);
    // An operator's close of it changes nothing either, and records no stop.
    const op = await call(web(0), "DELETE", `/v1/sessions/${s.id}`, pat("olga"));
    expect(op.status).toBe(200);
    expect(op.body).toEqual(res.body);
    expect(await db().agentStop.count({ where: { agent: { agentId: AGENTS.lapser } } })).toBe(0);
    const events = await db().auditEvent.findMany({
      where: { event: { startsWith: "session." }, detail: { path: ["session_id"], equals: s.id } },
      orderBy: { id: "asc" },
    });
    expect(events.map((e) => e.event)).toEqual(["session.registered", "session.expired"]);
  });

  it("a sibling agent's DELETE → 404 and the session stays live (R227)", async () => {
    const s = await registered(AGENTS.victim);
    const res = await call(web(0), "DELETE", `/v1/sessions/${s.id}`, key(AGENTS.sibling));
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("not_found");
    expect((await db().agentSession.findUniqueOrThrow({ where: { id: s.id } })).state).toBe("active");
  });

  it("a member's or viewer's PAT → 403 not_authorized; another account's owner → 404; nothing changes", async () => {
    const s = await registered(AGENTS.guarded);
    for (const handle of ["mia", "vic"]) {
      const res = await call(web(0), "DELETE", `/v1/sessions/${s.id}`, pat(handle));
      expect([handle, res.status, res.body.error.code]).toEqual([handle, 403, "not_authorized"]);
    }
    const gus = await call(web(1), "DELETE", `/v1/sessions/${s.id}`, pat("gus"));
    expect([gus.status, gus.body.error.code]).toEqual([404, "not_found"]);
    expect((await db().agentSession.findUniqueOrThrow({ where: { id: s.id } })).state).toBe("active");
    expect(await db().agentStop.count({ where: { agent: { agentId: AGENTS.guarded } } })).toBe(0);
    await registered(AGENTS.guarded);
  });

  it("an owner's DELETE is the kill-switch: closed_by_operator, every live session of the agent closed, the stop recorded and audited (R227, R228, R234)", async () => {
    const target = await registered(AGENTS.victim, { ttl_seconds: 600 });
    const other = await registered(AGENTS.victim, { ttl_seconds: 600 });
    const res = await call(web(1), "DELETE", `/v1/sessions/${target.id}`, pat("olga"));
    expect(res.status, res.text).toBe(200);
    expect(envelopeErrors(res.body)).toEqual([]);
    expect(res.body.session).toMatchObject({ id: target.id, state: "closed", closed_by_operator: true });
    // Its owner reads the marker too; the agent's other live session closed with it.
    const own = await call(web(0), "GET", `/v1/sessions/${other.id}`, key(AGENTS.victim));
    expect(own.body.session).toMatchObject({ state: "closed", closed_by_operator: true });
    expect(await db().agentSession.count({ where: { agent: { agentId: AGENTS.victim }, state: "active" } })).toBe(0);

    const stop = await db().agentStop.findFirstOrThrow({ where: { agent: { agentId: AGENTS.victim } } });
    expect(stop).toMatchObject({ stoppedBy: "human:olga", sessionId: target.id, accountId: await acmeId() });
    expect(stop.stoppedAt.toISOString()).toBe(res.body.session.closed_at);

    const closes = await db().auditEvent.findMany({
      where: { event: "session.closed", detail: { path: ["session_id"], equals: target.id } },
    });
    expect(closes.map((e) => [e.actor, (e.detail as any).closed_by_operator])).toEqual([["human:olga", true]]);
    const stops = await db().auditEvent.findMany({
      where: { event: "agent.stopped", detail: { path: ["agent_id"], equals: AGENTS.victim } },
    });
    const [stopped] = stops;
    expect(stops).toHaveLength(1);
    expect(stopped?.actor).toBe("human:olga");
    expect((stopped?.detail as Record<string, unknown> | undefined)?.sessions_closed).toEqual(
      expect.arrayContaining([target.id, other.id]),
    );

    // The same DELETE again: the same answer, no second stop or close recorded.
    const again = await call(web(0), "DELETE", `/v1/sessions/${target.id}`, pat("olga"));
    expect(again.body).toEqual(res.body);
    expect(
      await db().auditEvent.count({
        where: { event: "agent.stopped", detail: { path: ["agent_id"], equals: AGENTS.victim } },
      }),
    ).toBe(1);

    // §16.4.1: registration is refused while the stop stands, on either web.
    for (const via of [0, 1]) {
      const refused = await register(AGENTS.victim, {}, via);
      expect([refused.status, refused.body.error.code]).toEqual([403, "session_closed_by_operator"]);
    }
  });

  it("an admin may close too; the marker and the stop name the admin", async () => {
    const s = await registered(AGENTS.lapser, { ttl_seconds: 600 });
    const res = await call(web(0), "DELETE", `/v1/sessions/${s.id}`, pat("ada"));
    expect(res.body.session).toMatchObject({ state: "closed", closed_by_operator: true });
    const stop = await db().agentStop.findFirstOrThrow({ where: { agent: { agentId: AGENTS.lapser } } });
    expect(stop.stoppedBy).toBe("human:ada");
    expect((await register(AGENTS.lapser)).status).toBe(403);
  });
});

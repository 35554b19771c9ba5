/**
 * §8.2 pull over HTTP against real web processes: the GET body at each lifecycle step, `state`
 * verbatim, submitter binding (§9.1), `?wait=` long-polls woken by NOTIFY across processes, clamping,
 * expiry applied by the read itself, 1000 held waiters in one process, `?since=` and retention.
 */
// covers: lib/messages/read.ts, lib/http/routes/poll.ts, lib/http/poll-query.ts, lib/messages/waiters.ts, lib/messages/retention.ts
import { describe, expect, it } from "vitest";
import { jcs } from "@ma2h/protocol/jcs";
import { db } from "../lib/db";
import { purgeExpiredRetention } from "../lib/messages/retention";
import { client, startHub } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";
import { validateOfficial } from "./support/spec";
import { elapse, waitUntil } from "./support/wait";

const A = "deploybot/dev-team";
const B = "overseer/fleet";
/** Two web processes on one database: `hub` (the first) and `hub2`. */
const hub = useHubFixture({
  accounts: {
    acme: { agents: [A, B], humans: [{ handle: "alice", role: "owner" }] },
    other: { agents: [A] },
  },
  count: 2,
});
const hub2 = {
  get url() {
    return hub.webs[1]!.url;
  },
};
const acme = hub.account("acme");
const other = hub.account("other");
const UNKNOWN = "msg_0000000000000000000000000a";

const agent = (id = A) => client(hub.url, acme.keys[id]);

/**
 * A's live parked count in the shared store, over both accounts' rows of that agent id (only acme's
 * ever parks here; test/support/parked-store.ts would pick one of the two rows at random).
 */
async function parkedOfA(): Promise<number> {
  const rows = await db().$queryRaw<{ n: number }[]>`
    SELECT COALESCE(SUM(c.count), 0)::int AS n FROM parked_counts c
      JOIN process_leases l ON l.process_id = c.process_id AND l.alive_until > now()
      JOIN agents a ON c.key = 'agent:' || a.id
     WHERE a.agent_id = ${A}`;
  return rows[0]?.n ?? 0;
}

/**
 * Until `count` long-polls of A are parked: a parked request holds a slot of the agent's cap in the
 * shared store (lib/limits/parked.ts), taken after its waiter is registered and its first read found
 * the message open — so from here a resolve can only wake it.
 */
const parkedA = (count: number) =>
  waitUntil(
    () => parkedOfA(),
    (n) => n >= count,
    { what: `${count} parked long-poll(s) of ${A}`, timeout: 60_000 },
  );
/** Until every slot of A is given back (a release is written after the answer, asynchronously). */
const noneParkedA = () =>
  waitUntil(
    () => parkedOfA(),
    (n) => n === 0,
    { what: `${A}'s earlier long-polls released` },
  );

/** Raw GET: status, exact body text and elapsed ms. */
async function rawGet(path: string, token?: string, base = hub.url) {
  const t0 = performance.now();
  const res = await fetch(base + path, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  return { status: res.status, text, type: res.headers.get("content-type"), ms: performance.now() - t0 };
}

/** Submits as A; `rawState` is spliced in as JSON text, exactly as written. */
async function submit(
  type: "notify" | "ask" | "task",
  over: Record<string, unknown> = {},
  rawState?: string,
): Promise<string> {
  const json = JSON.stringify(envelope(type, A, over));
  const res = await agent().post(
    "/v1/messages",
    rawState === undefined ? json : `${json.slice(0, -1)},"state":${rawState}}`,
  );
  expect(res.status).toBe(202);
  return res.body.id as string;
}

/** The operator's resolve (a PAT, another client than the polling agent). */
const resolve = (id: string, value = "ship", base = hub.url) =>
  client(base, acme.tokens.alice).post(`/v1/messages/${id}/resolve`, { resolution: "answered", value });

/** Holds `?wait=30` on `pollVia`, resolves through `resolveVia`, returns the body and the wake lag. */
async function wakeLag(pollVia: string, resolveVia: string) {
  const id = await submit("ask");
  await noneParkedA();
  const poll = rawGet(`/v1/messages/${id}?wait=30`, acme.keys[A], pollVia);
  await parkedA(1);
  const res = await resolve(id, "hold", resolveVia);
  expect(res.status).toBe(200);
  const resolvedAt = performance.now();
  const got = await poll;
  return {
    status: got.status,
    body: JSON.parse(got.text),
    lag: performance.now() - resolvedAt,
    resolutionId: res.body.resolution_id,
  };
}

// Nested objects, a non-NFC "e\u0301" (as key and value, written as escapes), 1e21 and -0.001 in
// their source spelling, integer-like keys and an unusual key order: it must come back deep-equal
// and JCS-equal, never normalised.
const RAW_STATE = String.raw`{"zeta":{"e\u0301":"caf\u0065\u0301","deep":{"list":[1e21,-0.001,0,true,null,"\u00e9"],"":{}}},"10":"ten","2":"two","alpha":[{"y":1,"x":2}],"\ud83d\ude00":"emoji"}`;
const STATE: unknown = JSON.parse(RAW_STATE);

function expectState(got: unknown): void {
  expect(got).toEqual(STATE);
  expect(jcs(got)).toBe(jcs(STATE));
}

describe("GET /v1/messages/{id}", () => {
  it("returns the message at each lifecycle step (open, answered; notify delivered), valid, state verbatim", async () => {
    const id = await submit("ask", {}, RAW_STATE);
    const open = await rawGet(`/v1/messages/${id}`, acme.keys[A]);
    expect(open.status).toBe(200);
    const body = JSON.parse(open.text);
    expect([body.id, body.status, body.type, body.response]).toEqual([id, "open", "ask", undefined]);
    expect(validateOfficial("get-message.schema.json", body)).toEqual([]);
    expectState(body.state);
    expect(open.text).toContain(`"state":${JSON.stringify(STATE)}`);

    expect((await resolve(id)).status).toBe(200);
    const answered = await rawGet(`/v1/messages/${id}`, acme.keys[A]);
    const done = JSON.parse(answered.text);
    expect([done.status, done.response.resolution, done.response.response.value]).toEqual([
      "answered",
      "answered",
      "ship",
    ]);
    expect(done.response.response.actor).toBe("human:alice");
    expect(validateOfficial("get-message.schema.json", done)).toEqual([]);
    expect(validateOfficial("response.schema.json", done.response)).toEqual([]);
    expectState(done.state);
    expectState(done.response.state);
    expect(answered.text).toContain(`"state":${JSON.stringify(STATE)}`);
    // A terminal message returns the same body on every GET, from any process.
    for (const base of [hub.url, hub2.url, hub.url]) {
      expect((await rawGet(`/v1/messages/${id}`, acme.keys[A], base)).text).toBe(answered.text);
    }
    const notify = await agent().get(`/v1/messages/${await submit("notify", {}, RAW_STATE)}`);
    expect([notify.status, notify.body.status, notify.body.response]).toEqual([200, "delivered", undefined]);
    expect(validateOfficial("get-message.schema.json", notify.body)).toEqual([]);
    expectState(notify.body.state);
  });

  it("answers anyone but the submitter with a 404 byte-identical to an unknown id's", async () => {
    const id = await submit("ask");
    const unknown = await rawGet(`/v1/messages/${UNKNOWN}`, acme.keys[A]);
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text).error.code).toBe("not_found");
    for (const key of [acme.keys[B], other.keys[A]]) {
      const res = await rawGet(`/v1/messages/${id}`, key);
      expect([res.status, res.text, res.type]).toEqual([404, unknown.text, unknown.type]);
    }
  });

  it("answers 401 to an operator token, no credential or a garbage one", async () => {
    const id = await submit("ask");
    for (const token of [acme.tokens.alice, undefined, "garbage", "ma2h_key_nope", "ma2h_pat_nope"]) {
      const res = await rawGet(`/v1/messages/${id}`, token);
      expect([res.status, JSON.parse(res.text).error.code]).toEqual([401, "unauthenticated"]);
    }
  });

  it("never grants access by run_id; the binding is the principal, not the run", async () => {
    const run = { id: A, run_id: "run_shared", runtime: "cli" };
    const id = await submit("ask", { agent: run });
    const theirs = await agent(B).post("/v1/messages", envelope("ask", B, { agent: { ...run, id: B } }));
    expect(theirs.status).toBe(202);
    expect((await agent(B).get(`/v1/messages/${id}`)).status).toBe(404);
    expect((await agent(B).get(`/v1/messages/${id}?run_id=run_shared`)).status).toBe(404);
    expect((await client(hub.url, other.keys[A]).get(`/v1/messages/${id}`)).status).toBe(404);
    // The same agent from another run reads it.
    expect((await agent().get(`/v1/messages/${id}`)).body.agent.run_id).toBe("run_shared");
  });
});

describe("long-poll ?wait=", () => {
  it("wakes within 1.5 s of a resolve by another client, in the same and in another web process", async () => {
    for (const [label, resolveVia] of [
      ["same process", hub.url],
      ["other process (NOTIFY)", hub2.url],
    ] as const) {
      const got = await wakeLag(hub.url, resolveVia);
      console.log(`long-poll woke ${got.lag.toFixed(0)} ms after a resolve through the ${label}`);
      expect([got.status, got.body.status, got.body.response.response.value]).toEqual([200, "answered", "hold"]);
      expect(got.body.response.resolution_id).toBe(got.resolutionId);
      expect(got.lag).toBeLessThan(1500);
    }
  });

  /** A long-poll nobody answers: 200 `open` once the (clamped) wait ran out, ≈2 s. */
  async function runsOut(label: string, query: string, base = hub.url): Promise<void> {
    const id = await submit("ask");
    expect((await rawGet(`/v1/messages/${id}`, acme.keys[A], base)).status).toBe(200); // a warm route
    const got = await rawGet(`/v1/messages/${id}${query}`, acme.keys[A], base);
    console.log(`${label}: 200 open after ${got.ms.toFixed(0)} ms`);
    expect([got.status, JSON.parse(got.text).status]).toEqual([200, "open"]);
    expect(got.ms).toBeGreaterThanOrEqual(1800);
    expect(got.ms).toBeLessThan(4000);
  }

  it("answers 200 open when the wait runs out", () => runsOut("?wait=2 untouched", "?wait=2"));

  it("clamps a long wait to the server maximum instead of rejecting it; SIGTERM answers held polls", async () => {
    const clamped = await startHub({ databaseUrl: hub.databaseUrl, env: { MA2H_MAX_WAIT_SECONDS: "2" } });
    try {
      expect((await client(clamped.url).get("/.well-known/ma2h")).body.max_wait_seconds).toBe(2);
      await runsOut("?wait=600 with MA2H_MAX_WAIT_SECONDS=2", "?wait=600", clamped.url);
      // A stopping web process answers its held long-polls with the current status, not a reset.
      const asked = await submit("ask");
      await noneParkedA();
      const held = rawGet(`/v1/messages/${asked}?wait=600`, acme.keys[A], clamped.url);
      held.catch(() => {}); // a reset fails the await below, not the run
      await parkedA(1);
      await clamped.stop();
      const got = await held;
      expect([got.status, JSON.parse(got.text).status]).toEqual([200, "open"]);
      expect(got.ms).toBeLessThan(1500);
    } finally {
      await clamped.stop();
    }
  });

  it("rejects a negative or non-numeric wait with 400 validation_error", async () => {
    const id = await submit("ask");
    for (const wait of ["-1", "abc", "", "NaN", "Infinity"]) {
      const res = await agent().get(`/v1/messages/${id}?wait=${wait}`);
      expect([wait, res.status, res.body.error.code]).toEqual([wait, 400, "validation_error"]);
    }
  });

  it("returns expired shortly after expires_at with no worker running (the read applies expiry)", async () => {
    const at = new Date(Date.now() + 2000).toISOString();
    const plain = await submit("ask", { expires_at: at });
    const withDefault = await submit("ask", {
      expires_at: at,
      request: {
        mode: "select",
        options: [
          { value: "ship", label: "Ship" },
          { value: "hold", label: "Hold" },
        ],
        default_on_expire: "hold",
      },
    });
    const hold = (id: string) => rawGet(`/v1/messages/${id}?wait=30`, acme.keys[A]);
    const [a, b] = await Promise.all([hold(plain), hold(withDefault)]);
    const late = Date.now() - Date.parse(at);
    console.log(`expired long-polls returned ${late} ms after expires_at`);
    expect(late).toBeGreaterThan(0);
    expect(late).toBeLessThan(1500);
    const [pa, pb] = [JSON.parse(a.text), JSON.parse(b.text)];
    expect([pa.status, pa.response.resolution, pa.response.defaulted, pa.response.response.actor]).toEqual([
      "expired",
      "expired",
      false,
      "system:expiry",
    ]);
    expect(pa.response.response).not.toHaveProperty("value");
    expect([pb.status, pb.response.defaulted, pb.response.response.actor, pb.response.response.value]).toEqual([
      "expired",
      true,
      "system:default_on_expire",
      "hold",
    ]);
    for (const body of [pa, pb]) expect(validateOfficial("get-message.schema.json", body)).toEqual([]);
  });
});

describe("?since=", () => {
  it("answers 304 with an empty body when nothing changed after since, 200 otherwise", async () => {
    const before = new Date(Date.now() - 60_000).toISOString();
    const id = await submit("ask");
    await elapse(20, "timestamps compare at millisecond precision: `now` must fall strictly after the submit");
    const now = new Date().toISOString();
    const unchanged = await rawGet(`/v1/messages/${id}?since=${now}`, acme.keys[A]);
    expect([unchanged.status, unchanged.text]).toEqual([304, ""]);
    expect((await rawGet(`/v1/messages/${id}?since=${before}`, acme.keys[A])).status).toBe(200);

    await elapse(20, "and the resolve strictly after `now`");
    expect((await resolve(id)).status).toBe(200);
    const after = await rawGet(`/v1/messages/${id}?since=${now}`, acme.keys[A]);
    expect([after.status, JSON.parse(after.text).status]).toEqual([200, "answered"]);
    const later = new Date(Date.now() + 1000).toISOString();
    expect((await rawGet(`/v1/messages/${id}?since=${later}`, acme.keys[A])).status).toBe(304);
  });

  it("with wait, holds and answers 304 when nobody touches the message", async () => {
    const id = await submit("ask");
    const got = await rawGet(`/v1/messages/${id}?since=${new Date().toISOString()}&wait=3`, acme.keys[A]);
    console.log(`?since&wait=3 untouched: ${got.ms.toFixed(0)} ms`);
    expect([got.status, got.text]).toEqual([304, ""]);
    expect(got.ms).toBeGreaterThanOrEqual(2800);
    expect(got.ms).toBeLessThan(5000);
  });

  it("with wait, answers 200 with the terminal body when resolved during the wait", async () => {
    const id = await submit("ask");
    await noneParkedA();
    const poll = rawGet(`/v1/messages/${id}?since=${new Date().toISOString()}&wait=30`, acme.keys[A]);
    await parkedA(1);
    expect((await resolve(id, "hold", hub2.url)).status).toBe(200);
    const got = await poll;
    expect(got.ms).toBeLessThan(3000);
    const body = JSON.parse(got.text);
    expect([got.status, body.status, body.response.response.value]).toEqual([200, "answered", "hold"]);
  });

  it("rejects a bad since with 400 validation_error", async () => {
    const id = await submit("ask");
    for (const since of ["yesterday", "2026-12-01", "2026-13-45T00:00:00Z", "1700000000"]) {
      const res = await agent().get(`/v1/messages/${id}?since=${since}`);
      expect([since, res.status, res.body.error.code]).toEqual([since, 400, "validation_error"]);
    }
  });
});

describe("scale", () => {
  it("holds 1000 concurrent long-polls on 50 asks in one process and wakes them all", async () => {
    const ids = await Promise.all(Array.from({ length: 50 }, () => submit("ask")));
    await noneParkedA();
    let settled = 0;
    const t0 = performance.now();
    const polls = Array.from({ length: 1000 }, (_, i) =>
      rawGet(`/v1/messages/${ids[i % 50]}?wait=60`, acme.keys[A]).then((r) => {
        settled++;
        return { ...r, id: ids[i % 50]!, at: performance.now() };
      }),
    );
    // Held means parked: every one holds a slot of the agent's cap in the shared store.
    await parkedA(1000);
    const absorbed = performance.now() - t0;
    expect(settled).toBe(0);
    const probes: number[] = [];
    for (let i = 0; i < 5; i++) probes.push((await rawGet("/.well-known/ma2h")).ms);
    for (const ms of probes) expect(ms).toBeLessThan(500);

    const r0 = performance.now();
    const resolvedAt = new Map<string, number>();
    await Promise.all(
      ids.map((id) =>
        resolve(id).then((r) => {
          expect(r.status).toBe(200);
          resolvedAt.set(id, performance.now());
        }),
      ),
    );
    const r1 = performance.now();
    const results = await Promise.all(polls);
    expect(results.filter((r) => r.status !== 200 || JSON.parse(r.text).status !== "answered")).toEqual([]);
    const lags = results.map((r) => r.at - resolvedAt.get(r.id)!).sort((x, y) => x - y);
    const last = Math.max(...results.map((r) => r.at));
    console.log(
      `scale: 1000 long-polls taken in within ${absorbed.toFixed(0)} ms; well-known while held ${probes.map((p) => p.toFixed(0)).join("/")} ms; ` +
        `50 resolves took ${(r1 - r0).toFixed(0)} ms; poll return after its own resolve p50 ${lags[500]!.toFixed(0)} / max ${lags[999]!.toFixed(0)} ms; ` +
        `last poll ${(last - r1).toFixed(0)} ms after the last resolve`,
    );
    // Generous bounds: a loaded 2-core CI box; the figures above are what to read.
    expect(lags[999]).toBeLessThan(10_000);
    expect(last - r1).toBeLessThan(10_000);
  });
});

describe("retention", () => {
  it("purges terminal messages after retention_days: 410 to the submitter, 404 to others; open kept", async () => {
    const done = await submit("ask");
    expect((await resolve(done)).status).toBe(200);
    const open = await submit("ask");
    const purged = await purgeExpiredRetention(new Date(Date.now() + 31 * 86_400_000));
    expect(purged).toBeGreaterThan(0);
    const gone = await agent().get(`/v1/messages/${done}`);
    expect([gone.status, gone.body.error.code]).toEqual([410, "gone"]);
    const unknown = await rawGet(`/v1/messages/${UNKNOWN}`, acme.keys[B]);
    for (const key of [acme.keys[B], other.keys[A]]) {
      const res = await rawGet(`/v1/messages/${done}`, key);
      expect([res.status, res.text]).toEqual([404, unknown.text]);
    }
    const still = await agent().get(`/v1/messages/${open}`);
    expect([still.status, still.body.status]).toEqual([200, "open"]);
  });
});

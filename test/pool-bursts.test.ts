/**
 * Load within the advertised limits never answers 500 (§8.6): with a small database pool
 * (MA2H_DATABASE_POOL_MAX=2), bursts of four times the pool size against each write route — plain,
 * addressed and session-bound submits, resolve by a person and by the addressed agent, the
 * mailbox and response-leg acks, directives, session registration and close — are each answered
 * 2xx within 30 s, twice in a row. A path that takes a second pooled connection while it holds one
 * (a read through `db()` inside a transaction) deadlocks the pool under such a burst: every
 * connection is held by a transaction waiting for another, until Prisma's transaction timeout
 * answers 500 (P2028).
 */
// covers: lib/db.ts, lib/http/routes/
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { client } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";

const POOL = 2;
const BURST = 4 * POOL;
const DEADLINE_MS = 30_000;
const A = "sender/fleet";
const B = "addressee/fleet";

const hub = useHubFixture({
  accounts: { acme: { agents: [A, B], humans: [{ handle: "alice", role: "owner" }] } },
  env: { MA2H_DATABASE_POOL_MAX: String(POOL) },
});
const acme = hub.account("acme");
const agent = (id: string) => client(hub.url, acme.keys[id]);
const alice = () => client(hub.url, acme.tokens.alice);

type Reply = { status: number; body: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any

/** `n` calls at once; each must answer 2xx within the deadline. Returns the bodies in call order. */
async function burst(label: string, n: number, call: (i: number) => Promise<Reply>): Promise<Reply["body"][]> {
  const replies = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const started = Date.now();
      const reply = await Promise.race([
        call(i),
        new Promise<Reply>((_, fail) =>
          setTimeout(() => fail(new Error(`${label} #${i}: no answer in ${DEADLINE_MS} ms`)), DEADLINE_MS).unref(),
        ),
      ]);
      return { ...reply, ms: Date.now() - started };
    }),
  );
  for (const [i, r] of replies.entries()) {
    expect(r.status, `${label} #${i}: ${JSON.stringify(r.body)}`).toBeGreaterThanOrEqual(200);
    expect(r.status, `${label} #${i}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
    expect(r.ms, `${label} #${i}`).toBeLessThan(DEADLINE_MS);
  }
  return replies.map((r) => r.body);
}

/** lib/db.ts logs each connection taken inside a transaction; none may be, whatever the load. */
const SECOND_CONNECTION = "a second pooled connection taken inside a transaction";

/** Two bursts in a row (the second found a pool the first had left exhausted). */
async function twice(label: string, call: (i: number) => Promise<Reply>): Promise<void> {
  await burst(`${label} (first burst)`, BURST, call);
  await burst(`${label} (second burst)`, BURST, (i) => call(BURST + i));
  const taken = hub.web
    .output()
    .split("\n")
    .filter((line) => line.includes(SECOND_CONNECTION));
  expect(taken, label).toEqual([]);
}

async function register(id: string): Promise<string> {
  const res = await agent(id).post("/v1/sessions", {});
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.session.id as string;
}

let sessionA: string;
let sessionB: string;
beforeAll(async () => {
  await db().account.update({ where: { slug: "acme" }, data: { interAgentEnabled: true } });
  sessionA = await register(A);
  sessionB = await register(B);
});

describe(`bursts of ${BURST} against a pool of ${POOL}`, () => {
  it("plain submits: notify, ask, and with an idempotency key", async () => {
    await twice("plain submit", (i) =>
      agent(A).post(
        "/v1/messages",
        envelope(i % 3 === 0 ? "notify" : "ask", A, i % 2 === 0 ? { idempotency_key: `plain-${i}` } : {}),
      ),
    );
  }, 120_000);

  it("addressed submits (to:) and session-bound submits", async () => {
    await twice("addressed submit", (i) =>
      agent(A).post("/v1/messages", envelope(i % 2 ? "ask" : "notify", A, { to: `agent:${B}` })),
    );
    await twice("addressed submit to a session", (i) =>
      agent(A).post("/v1/messages", envelope("notify", A, { to: `agent:${B}#${sessionB}`, title: `to session ${i}` })),
    );
    await twice("session-bound submit", (i) =>
      agent(A).post(
        "/v1/messages",
        envelope(i % 2 ? "ask" : "notify", A, {
          agent: { ...(envelope("notify", A).agent as object), session: sessionA },
        }),
      ),
    );
  }, 240_000);

  it("resolve by a person, and by the addressed agent", async () => {
    const asks: string[] = [];
    for (let i = 0; i < 2 * BURST; i++) asks.push((await agent(A).post("/v1/messages", envelope("ask", A))).body.id);
    await twice("resolve (person)", (i) =>
      alice().post(`/v1/messages/${asks[i]}/resolve`, { resolution: "answered", value: "ship" }),
    );
    const addressed: string[] = [];
    for (let i = 0; i < 2 * BURST; i++)
      addressed.push((await agent(A).post("/v1/messages", envelope("ask", A, { to: `agent:${B}` }))).body.id);
    await twice("resolve (addressed agent)", (i) =>
      agent(B).post(`/v1/messages/${addressed[i]}/resolve?session=${sessionB}`, {
        resolution: "answered",
        value: "ship",
      }),
    );
    // The response leg: the sender reads each resolution (delivering it), then acks its receipt.
    for (const id of addressed) expect((await agent(A).get(`/v1/messages/${id}`)).status).toBe(200);
    await twice("response-leg ack", (i) => agent(A).post(`/v1/messages/${addressed[i]}/ack`, {}));
  }, 240_000);

  it("mailbox acks", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 2 * BURST; i++) {
      const res = await alice().post("/v1/directives", { to: `agent:${B}`, title: `ack me ${i}` });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    // Handed out first (an ack needs a delivered entry), in batches the drain allows.
    for (let seen = 0; seen < ids.length; ) {
      const res = await agent(B).get(`/v1/inbox?session=${sessionB}&max=32`);
      expect(res.status).toBe(200);
      if (res.body.messages.length === 0) break;
      seen += res.body.messages.length;
    }
    await twice("mailbox ack", (i) => agent(B).post(`/v1/inbox/ack?session=${sessionB}`, { ids: [ids[i]] }));
  }, 240_000);

  it("directives", async () => {
    await twice("directive", (i) =>
      alice().post(
        "/v1/directives",
        i % 2 ? { to: `agent:${A}`, title: `d ${i}` } : { to: `agent:${A}#${sessionA}`, title: `d ${i}` },
      ),
    );
  }, 120_000);

  it("session registration and close", async () => {
    const opened: string[] = [];
    await twice("session register", async (i) => {
      const res = await agent(i % 2 ? A : B).post("/v1/sessions", {});
      if (res.status === 201) opened[i] = res.body.session.id;
      return res;
    });
    await twice("session close", (i) => agent(i % 2 ? A : B).delete(`/v1/sessions/${opened[i]}`));
  }, 120_000);
});

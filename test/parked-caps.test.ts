/**
 * Caps on held requests (lib/limits/parked.ts), against real web processes sharing one
 * PostgreSQL (and, for the Redis store, one Redis): parked long-polls and drains per agent — all its
 * keys, all processes together — answered at once with `429` + `Retry-After` over the cap, the
 * process ceiling as `503` + `Retry-After`, inbox streams per person, slots given back on timeout
 * and on a client that hangs up, and the cap advertised in the capability document.
 */
// covers: lib/limits/parked.ts, lib/limits/held-store.ts, lib/limits/pg-store.ts, lib/limits/redis-store.ts
import { readFileSync } from "node:fs";
import http from "node:http";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { rotateKey } from "../lib/principals/api-keys";
import { createWebSession, SESSION_COOKIE_NAMES } from "../lib/principals/web-sessions";
import { capabilitySchema } from "@ma2h/protocol/capability";
import { client, type HubProcess, startHub } from "./support/hub";
import { type BearerAnswer, bearerGet } from "./support/bearer-get";
import { parkedStoreTotal } from "./support/parked-store";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";
import { validateOfficial } from "./support/spec";
import { waitUntil } from "./support/wait";

const BUSY = "busy/bot"; // the 2,000 parked waits, over two keys and two processes
const MIXED = "mixed/bot"; // long-polls and drains on one cap
const CEIL = ["ceil-a/bot", "ceil-b/bot"]; // the process ceiling
const RED = "red/bot"; // the Redis store
const LOOSE = "loose/bot"; // released slots
let busyKey2 = "";

const hub = useHubFixture({
  server: "web",
  count: 2,
  accounts: {
    acme: { agents: [BUSY, MIXED, ...CEIL, RED, LOOSE], humans: [{ handle: "olga", role: "owner" }] },
  },
  setup: async () => {
    busyKey2 = (await rotateKey({ agentId: BUSY, accountSlug: "acme" })).api_key;
  },
});
const acme = hub.account("acme");

/** Many sockets at once: a keep-alive agent with no per-host limit (undici's pool would queue). */
const pool = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });

type Answer = BearerAnswer;

/** GET with a bearer key; `hangUp` destroys the request after that many ms (a client that goes away). */
function get(base: string, path: string, key: string, hangUp?: number): Promise<Answer | null> {
  return bearerGet(`${base}${path}`, key, { agent: pool, hangUp });
}

/** §8.5 envelope with exactly `code`, and whole seconds in Retry-After. */
function expectRefused(a: Answer | null, status: number, code: string): void {
  expect(a?.status).toBe(status);
  expect(Object.keys(a?.body ?? {})).toEqual(["error"]);
  expect(a?.body.error.code).toBe(code);
  expect(a?.retryAfter).toMatch(/^[1-9]\d*$/);
}

async function openAsk(agentId: string): Promise<string> {
  const res = await client(hub.url, acme.keys[agentId]).post("/v1/messages", envelope("ask", agentId));
  expect(res.status).toBe(202);
  return res.body.id as string;
}

/** The agent's total in the Redis store (the hash the web processes keep, lib/limits/redis-store.ts). */
async function redisTotal(agentId: string): Promise<number> {
  const agent = await db().agent.findFirstOrThrow({ where: { agentId } });
  const r = new Redis("redis://127.0.0.1:6379");
  try {
    const fields = await r.hgetall(`ma2h:held:agent:${agent.id}`);
    return Object.values(fields).reduce((n, v) => n + Number(v), 0);
  } finally {
    r.disconnect();
  }
}

function rssMb(p: HubProcess): number {
  const status = readFileSync(`/proc/${p.child.pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

const until = <T>(probe: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> =>
  waitUntil(probe, ok, { timeout: ms, every: 100 });

afterAll(() => pool.destroy());

describe("capability document", () => {
  it("advertises rate_limit.max_parked_per_agent, valid against the official schema and the Hub's mirror", async () => {
    const doc = (await client(hub.url).get("/.well-known/ma2h")).body;
    expect(doc.rate_limit.max_parked_per_agent).toBe(1000);
    expect(validateOfficial("capability.schema.json", doc)).toEqual([]);
    expect(capabilitySchema.safeParse(doc).success).toBe(true);
  });
});

describe("parked requests per agent (default 1,000, across processes)", () => {
  it("2,000 parked waits on one agent: 1,000 held, the rest 429 at once with Retry-After; memory bounded", async () => {
    const id = await openAsk(BUSY);
    const [a, b] = hub.webs as [HubProcess, HubProcess];
    const keys = [acme.keys[BUSY] as string, busyKey2];
    // Warm both processes (route compilation, pools) so the RSS baseline is the steady state.
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => get((i % 2 ? a : b).url, `/v1/messages/${id}?wait=1`, keys[i % 2] ?? "")),
    );
    const before = [rssMb(a), rssMb(b)];

    // The wait is the longest there is: a held request returns only when the message is resolved
    // below, so the test does not depend on how fast this machine parks them.
    let refusedSoFar = 0;
    const sent = Date.now();
    const all = Promise.all(
      Array.from({ length: 2000 }, (_, i) =>
        // Alternate processes and keys: the cap is the agent's, whichever key and process.
        get((i % 2 ? a : b).url, `/v1/messages/${id}?wait=60`, keys[Math.floor(i / 2) % 2] ?? "").then((r) => {
          if (r?.status !== 200) refusedSoFar += 1;
          return r as Answer;
        }),
      ),
    );
    expect(
      await until(
        () => parkedStoreTotal(BUSY),
        (n) => n === 1000,
        90_000,
      ),
    ).toBe(1000);
    expect(
      await until(
        async () => refusedSoFar,
        (n) => n === 1000,
        60_000,
      ),
    ).toBe(1000);
    const parkedIn = Date.now() - sent;
    // While the 1,000 are held (and the other 1,000 already answered): memory is bounded.
    const during = [rssMb(a), rssMb(b)];
    const resolvedAt = Date.now();
    const resolved = await client(hub.url, acme.tokens.olga).post(`/v1/messages/${id}/resolve`, {
      resolution: "answered",
      value: "ship",
    });
    expect(resolved.status).toBe(200);
    const answers = await all;

    const held = answers.filter((r) => r.status === 200);
    const refused = answers.filter((r) => r.status !== 200);
    expect(held).toHaveLength(1000);
    expect(refused).toHaveLength(1000);
    const failed = refused.find((r) => r.status !== 429);
    expect(
      failed?.status,
      failed &&
        hub.webs
          .map((w) =>
            w
              .output()
              .split("\n")
              .filter((l) => l.includes('"error"'))
              .slice(-5)
              .join("\n"),
          )
          .join("\n"),
    ).toBeUndefined();
    for (const r of refused) expectRefused(r, 429, "rate_limited");
    // "At once": every refusal came back while the held requests were still parked — before the
    // resolve was sent (the same millisecond counts: Date.now() has no finer grain).
    for (const r of refused) expect(r.at).toBeLessThanOrEqual(resolvedAt);
    for (const r of held) {
      expect(r.body.status).toBe("answered");
      expect(r.at).toBeGreaterThanOrEqual(resolvedAt);
    }
    // Each process holds its share; growth is bounded (~70 KiB per parked request measured in
    // docs/PERFORMANCE.md), not proportional to what was refused.
    for (const i of [0, 1]) expect((during[i] ?? 0) - (before[i] ?? 0)).toBeLessThan(256);
    console.log(
      `1,000 parked and 1,000 refused in ${(parkedIn / 1000).toFixed(1)} s; RSS MB before ${before.map(Math.round)}, held ${during.map(Math.round)}`,
    );

    // Every slot came back: the agent parks again.
    expect(
      await until(
        () => parkedStoreTotal(BUSY),
        (n) => n === 0,
      ),
    ).toBe(0);
    const next = await openAsk(BUSY);
    const t0 = Date.now();
    const again = await get(a.url, `/v1/messages/${next}?wait=1`, keys[1] ?? "");
    expect(again?.status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900); // it parked, for its whole wait
  }, 180_000);
});

describe("small caps on more web processes", () => {
  let small: HubProcess;
  let reds: HubProcess[] = [];

  beforeAll(async () => {
    [small, ...reds] = await Promise.all([
      startHub({
        databaseUrl: hub.databaseUrl,
        // The whole ceiling open to one account: the share has its own test (parked-share.test.ts).
        env: {
          MA2H_MAX_PARKED_PER_AGENT: "2",
          MA2H_MAX_PARKED_PER_PROCESS: "3",
          MA2H_MAX_PARKED_PER_ACCOUNT_PERCENT: "100",
        },
      }),
      ...[0, 1].map(() =>
        startHub({
          databaseUrl: hub.databaseUrl,
          env: {
            REDIS_URL: "redis://127.0.0.1:6379",
            MA2H_QUEUE_PREFIX: `caps-${process.pid}`,
            MA2H_MAX_PARKED_PER_AGENT: "2",
          },
        }),
      ),
    ]);
  });
  afterAll(async () => {
    await Promise.all([small, ...reds].filter(Boolean).map((p) => p.stop()));
  });

  it("long-polls and parked drains of one agent share the cap; an answer ready at once takes no slot", async () => {
    const id = await openAsk(MIXED);
    const key = acme.keys[MIXED] as string;
    const poll = get(small.url, `/v1/messages/${id}?wait=3`, key);
    const drain = get(small.url, "/v1/inbox?wait=3", key);
    await until(
      () => parkedStoreTotal(MIXED),
      (n) => n === 2,
    );
    expectRefused(await get(small.url, "/v1/inbox?wait=3", key), 429, "rate_limited");
    expectRefused(await get(small.url, `/v1/messages/${id}?wait=3`, key), 429, "rate_limited");
    // Not parking costs nothing: a plain GET and a drain without wait still answer.
    expect((await get(small.url, `/v1/messages/${id}`, key))?.status).toBe(200);
    expect((await get(small.url, "/v1/inbox", key))?.status).toBe(200);
    expect((await poll)?.status).toBe(200);
    expect((await drain)?.status).toBe(200);
    expect(
      await until(
        () => parkedStoreTotal(MIXED),
        (n) => n === 0,
      ),
    ).toBe(0);
  });

  it("a client that hangs up gives its slot back at once (not at the end of its wait)", async () => {
    const id = await openAsk(LOOSE);
    const key = acme.keys[LOOSE] as string;
    const gone = [0, 1].map(() => get(small.url, `/v1/messages/${id}?wait=30`, key, 1500));
    expect(
      await until(
        () => parkedStoreTotal(LOOSE),
        (n) => n === 2,
      ),
    ).toBe(2);
    expectRefused(await get(small.url, `/v1/messages/${id}?wait=30`, key), 429, "rate_limited");
    await Promise.all(gone);
    expect(
      await until(
        () => parkedStoreTotal(LOOSE),
        (n) => n === 0,
      ),
    ).toBe(0);
    const again = await get(small.url, `/v1/messages/${id}?wait=1`, key);
    expect(again?.status).toBe(200);
  });

  it("over the process ceiling: 503 unavailable with Retry-After, whoever asks", async () => {
    const [x, y] = await Promise.all(CEIL.map(openAsk));
    const keys = CEIL.map((c) => acme.keys[c] as string);
    const held = [
      get(small.url, `/v1/messages/${x}?wait=3`, keys[0] ?? ""),
      get(small.url, `/v1/messages/${x}?wait=3`, keys[0] ?? ""),
      get(small.url, `/v1/messages/${y}?wait=3`, keys[1] ?? ""),
    ];
    await until(
      async () => (await parkedStoreTotal(CEIL[0] ?? "")) + (await parkedStoreTotal(CEIL[1] ?? "")),
      (n) => n === 3,
    );
    // The second agent is under its own cap (1 of 2), but the process holds 3 of 3.
    expectRefused(await get(small.url, `/v1/messages/${y}?wait=3`, keys[1] ?? ""), 503, "unavailable");
    // Another process is not full.
    expect((await get(hub.url, `/v1/messages/${y}?wait=1`, keys[1] ?? ""))?.status).toBe(200);
    for (const r of await Promise.all(held)) expect(r?.status).toBe(200);
  });

  it("with Redis: the cap holds across processes, and a slot comes back when a client hangs up", async () => {
    const [r1, r2] = reds as [HubProcess, HubProcess];
    const id = await openAsk(RED);
    const key = acme.keys[RED] as string;
    const one = get(r1.url, `/v1/messages/${id}?wait=20`, key, 1500);
    const two = get(r2.url, `/v1/messages/${id}?wait=3`, key);
    expect(
      await until(
        () => redisTotal(RED),
        (n) => n === 2,
      ),
    ).toBe(2);
    expectRefused(await get(r1.url, `/v1/messages/${id}?wait=3`, key), 429, "rate_limited");
    expectRefused(await get(r2.url, "/v1/inbox?wait=3", key), 429, "rate_limited");
    await one; // hung up after 1.5 s: its slot is free again on either process
    expect(
      await until(
        () => redisTotal(RED),
        (n) => n === 1,
      ),
    ).toBe(1);
    const third = await until(
      () => get(r2.url, `/v1/messages/${id}?wait=1`, key),
      (a) => a?.status === 200,
    );
    expect(third?.status).toBe(200);
    expect((await two)?.status).toBe(200);
  });
});

describe("inbox streams per person (default 10)", () => {
  async function sessionCookie(): Promise<string> {
    const user = await db().user.findUniqueOrThrow({ where: { email: "olga@acme.test" } });
    const token = `sess-olga-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    await createWebSession(user.id, token, new Date(Date.now() + 3_600_000));
    return `${SESSION_COOKIE_NAMES[1]}=${token}`;
  }

  /** Opens a stream; resolves once its first bytes (`ready`) arrive, or with the refusal. */
  async function open(base: string, cookie: string) {
    const ctl = new AbortController();
    const res = await fetch(`${base}/inbox/events`, { headers: { cookie }, signal: ctl.signal });
    if (res.status === 200) await res.body?.getReader().read();
    return { res, close: () => ctl.abort() };
  }

  it("the 11th stream of one person is 429 with Retry-After, across processes; closing one frees a slot", async () => {
    const cookie = await sessionCookie();
    const [a, b] = hub.webs as [HubProcess, HubProcess];
    const streams = [];
    for (let i = 0; i < 10; i++) streams.push(await open((i % 2 ? a : b).url, cookie));
    for (const s of streams) expect(s.res.status).toBe(200);
    const over = await open(a.url, cookie);
    expect(over.res.status).toBe(429);
    expect(over.res.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect((await over.res.json()).error.code).toBe("rate_limited");
    expect((await open(b.url, cookie)).res.status).toBe(429);

    streams[0]?.close();
    const again = await until(
      () => open(b.url, cookie),
      (s) => s.res.status === 200,
    );
    expect(again.res.status).toBe(200);
    again.close();
    for (const s of streams) s.close();
  });
});

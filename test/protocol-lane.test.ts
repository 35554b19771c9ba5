/**
 * The protocol lane (server/protocol-lane.ts) answers exactly as Next does: each named case below
 * sends the same requests to a web with the lane and to one without it (MA2H_PROTOCOL_LANE=0) on the
 * same database, and both must give the same status, the same body (per-call ids and times
 * blanked) and the same response headers — all of them but the per-request ones and the framing
 * (NOT_COMPARED), and `vary`, which Next adds to every answer and the lane does not: it is how the
 * first case shows the lane really served.
 *
 * Run with MA2H_PROTOCOL_LANE=0 in the environment, the fixture's web runs without the lane too:
 * the table then holds Next to itself (the "lane served" assertion is skipped).
 */
// covers: server/protocol-lane.ts
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { startHub, type HubProcess } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";
import { waitFor } from "./support/wait";

const LANE_ON = process.env.MA2H_PROTOCOL_LANE !== "0";
const A = "lanebot/dev";
const RL = "ratebot/dev"; // spends its budget, for the 429
const MAX_BODY = 8192;
const PER_MINUTE = 40;
const LIMITS = { MA2H_MAX_BODY_BYTES: String(MAX_BODY), MA2H_RATE_LIMIT_PER_MINUTE: String(PER_MINUTE) };
const hub = useHubFixture({
  accounts: { acme: { agents: [A, RL], humans: [{ handle: "alice", role: "owner" }] } },
  env: LANE_ON ? LIMITS : { ...LIMITS, MA2H_PROTOCOL_LANE: "0" },
});
const acme = hub.account("acme");
let nextOnly: HubProcess;

beforeAll(async () => {
  nextOnly = await startHub({ databaseUrl: hub.databaseUrl, env: { ...LIMITS, MA2H_PROTOCOL_LANE: "0" } });
}, 120_000);
afterAll(async () => {
  await nextOnly?.stop();
});

interface Answer {
  status: number;
  body: unknown;
  headers: Headers;
}

interface Init {
  token?: string;
  body?: string;
  type?: string;
  signal?: AbortSignal;
}

async function call(base: string, method: string, path: string, init: Init = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers["content-type"] = init.type ?? "application/json";
  const res = await fetch(base + path, { method, headers, body: init.body, signal: init.signal });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: compared as text */
  }
  return { status: res.status, body, headers: res.headers };
}

/**
 * Headers not compared by value: those that differ per request whoever serves (`date`; the request
 * id and `Retry-After`, compared by form), Next's marker `vary`, and the framing — the lane sends
 * the body it holds with a `Content-Length`, Next streams it chunked; both are HTTP/1.1's framing
 * of the same bytes, not part of the answer.
 */
const NOT_COMPARED = new Set(["date", "x-request-id", "retry-after", "vary", "content-length", "transfer-encoding"]);

/** What must agree: the status, the body with per-call ids and times blanked, and every header. */
function shape(a: Answer) {
  const blank = (v: unknown): unknown =>
    typeof v === "string"
      ? v
          .replace(/(msg|res|req|sess)_[0-9a-z]{26}/g, "$1_*")
          .replace(/\d{4}-\d\d-\d\dT[0-9:.]+Z/g, "T")
          .replace(/http:\/\/127\.0\.0\.1:\d+/g, "http://hub")
      : Array.isArray(v)
        ? v.map(blank)
        : v && typeof v === "object"
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, blank(x)]))
          : v;
  const headers: Record<string, string> = {};
  a.headers.forEach((value, name) => {
    if (!NOT_COMPARED.has(name)) headers[name] = value;
  });
  return {
    status: a.status,
    body: blank(a.body),
    headers,
    requestId: /^req_[0-9a-z]{26}$/.test(a.headers.get("x-request-id") ?? ""),
    retryAfter: a.headers.has("retry-after") ? /^[1-9]\d*$/.test(a.headers.get("retry-after") ?? "") : null,
  };
}

/** The same request to both; their shapes must agree. Returns [lane, next]. */
async function both(method: string, path: string, init: Init = {}): Promise<readonly [Answer, Answer]> {
  const [lane, next] = await Promise.all([call(hub.url, method, path, init), call(nextOnly.url, method, path, init)]);
  expect(shape(lane), `${method} ${path}`).toStrictEqual(shape(next));
  return [lane, next] as const;
}

const key = () => acme.keys[A] as string;
const pat = () => acme.tokens.alice as string;
const ask = (over: Record<string, unknown> = {}) => JSON.stringify(envelope("ask", A, over));
const submitAsk = async (base: string) => {
  const res = await call(base, "POST", "/v1/messages", { token: key(), body: ask() });
  expect(res.status).toBe(202);
  return (res.body as { id: string }).id;
};

/** Waits for a predicate, generously: the box is shared. */
const until = (what: string, ok: () => boolean, timeout = 15_000) => waitFor(ok, { what, timeout, every: 100 });

/**
 * Until at least `n` long-polls of A are parked, in either process: a parked long-poll holds a slot
 * of A's parked-request cap, counted in `parked_counts` (these Hubs have no Redis) just before it
 * sleeps on its wake-up.
 */
async function parkedPolls(n: number): Promise<void> {
  const row = await db().agent.findFirstOrThrow({ where: { agentId: A, account: { slug: "acme" } } });
  await waitFor(
    async () =>
      (await db().parkedCount.findMany({ where: { key: `agent:${row.id}` } })).reduce((s, c) => s + c.count, 0) >= n,
    { every: 20, what: `${n} parked long-polls of ${A}` },
  );
}

/** Requests on one keep-alive socket (one agent, one socket), as a pooling client sends them. */
function pooled(base: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const send = (method: string, path: string, body?: string) =>
    new Promise<{ status: number; body: string; reused: boolean; close: boolean }>((resolve, reject) => {
      const req = http.request(
        base + path,
        {
          method,
          agent,
          headers: {
            authorization: `Bearer ${key()}`,
            ...(body === undefined
              ? {}
              : { "content-type": "application/json", "content-length": Buffer.byteLength(body) }),
          },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c) => (text += c));
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              body: text,
              reused: req.reusedSocket,
              close: res.headers.connection === "close",
            }),
          );
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  return { send, close: () => agent.destroy() };
}

const state: { id?: string } = {};

interface Case {
  name: string;
  run: () => Promise<void>;
}

const CASES: Case[] = [
  {
    name: "a valid ask is accepted (202), served by the lane",
    run: async () => {
      const [lane, next] = await both("POST", "/v1/messages", { token: key(), body: ask() });
      expect(lane.status).toBe(202);
      state.id = (lane.body as { id: string }).id;
      // Next's own headers mark which one served: the lane writes only what the handler returned.
      expect(next.headers.get("vary")).not.toBeNull();
      if (LANE_ON) expect(lane.headers.get("vary")).toBeNull();
    },
  },
  {
    name: "a body that is not JSON is 400",
    run: async () => {
      await both("POST", "/v1/messages", { token: key(), body: "{not json" });
    },
  },
  {
    name: "a body that is not application/json is refused",
    run: async () => {
      const [lane] = await both("POST", "/v1/messages", { token: key(), body: ask(), type: "text/plain" });
      expect(lane.status).toBeGreaterThanOrEqual(400);
    },
  },
  {
    name: "no credential is 401",
    run: async () => {
      const [lane] = await both("POST", "/v1/messages", { body: ask() });
      expect(lane.status).toBe(401);
    },
  },
  {
    name: "an envelope naming another agent is refused",
    run: async () => {
      await both("POST", "/v1/messages", {
        token: key(),
        body: JSON.stringify({ ...envelope("ask", A), agent: { id: "someone/else" } }),
      });
    },
  },
  {
    name: "the screened X-Forwarded-For reaches the access log, never the client's own",
    run: async () => {
      const spoofed = await fetch(`${hub.url}/v1/messages`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key()}`,
          "content-type": "application/json",
          "x-forwarded-for": "203.0.113.9",
        },
        body: ask(),
      });
      expect(spoofed.status).toBe(202);
      const requestId = spoofed.headers.get("x-request-id") as string;
      const line = () =>
        hub.web
          .output()
          .split("\n")
          .find((l) => l.includes(requestId) && l.includes('"msg":"request"'));
      await until("the access log line", () => line() !== undefined);
      expect(JSON.parse(line() as string)).toMatchObject({ client_ip: "127.0.0.1", request_id: requestId });
    },
  },
  {
    name: "an idempotent replay answers the same ack, whichever serves the original",
    run: async () => {
      const body = ask({ idempotency_key: `replay-${Date.now()}` });
      const first = await call(hub.url, "POST", "/v1/messages", { token: key(), body });
      expect(first.status).toBe(202);
      const [lane, next] = await both("POST", "/v1/messages", { token: key(), body });
      expect((lane.body as { id: string }).id).toBe((first.body as { id: string }).id);
      expect((next.body as { id: string }).id).toBe((first.body as { id: string }).id);
    },
  },
  {
    name: "an unknown message id is 404",
    run: async () => {
      const [lane] = await both("GET", "/v1/messages/msg_00000000000000000000000000", { token: key() });
      expect(lane.status).toBe(404);
    },
  },
  {
    name: "an id with something to decode is left to Next",
    run: async () => {
      await both("GET", "/v1/messages/%6Dsg_x", { token: key() });
    },
  },
  {
    name: "a verb the route table does not serve is the 404 envelope",
    run: async () => {
      const [put] = await both("PUT", "/v1/messages", { token: key(), body: ask() });
      expect(put.status).toBe(404);
      const [del] = await both("DELETE", `/v1/messages/${state.id}`, { token: key() });
      expect(del.body).toEqual({ error: { code: "not_found", message: "no such endpoint" } });
    },
  },
  {
    name: "OPTIONS answers 204 with the route table's Allow",
    run: async () => {
      const [messages] = await both("OPTIONS", "/v1/messages");
      expect([messages.status, messages.headers.get("allow")]).toEqual([204, "OPTIONS, POST"]);
      const [one] = await both("OPTIONS", `/v1/messages/${state.id}`);
      expect(one.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
      const [unknown] = await both("OPTIONS", "/v1/nothing");
      expect(unknown.status).toBe(404);
    },
  },
  {
    name: "HEAD answers the GET's status and headers without a body",
    run: async () => {
      const [poll] = await both("HEAD", `/v1/messages/${state.id}`, { token: key() });
      expect([poll.status, poll.body]).toEqual([200, ""]);
      const [post] = await both("HEAD", "/v1/messages", { token: key() });
      expect([post.status, post.body]).toEqual([404, ""]);
    },
  },
  {
    name: "a poll of an open ask",
    run: async () => {
      const [lane] = await both("GET", `/v1/messages/${state.id}`, { token: key() });
      expect((lane.body as { status: string }).status).toBe("open");
    },
  },
  {
    name: "a long-poll woken by a resolve through the lane; a refused resolve; 409 after",
    run: async () => {
      const id = state.id as string;
      const parked = Promise.all([
        call(hub.url, "GET", `/v1/messages/${id}?wait=20`, { token: key() }),
        call(nextOnly.url, "GET", `/v1/messages/${id}?wait=20`, { token: key() }),
      ]);
      await parkedPolls(2);
      await both("POST", `/v1/messages/${id}/resolve`, { token: pat(), body: "{}" });
      const resolved = await call(hub.url, "POST", `/v1/messages/${id}/resolve`, {
        token: pat(),
        body: JSON.stringify({ resolution: "answered", value: "ship" }),
      });
      expect(resolved.status).toBe(200);
      const [laneWoken, nextWoken] = await parked;
      expect(shape(laneWoken)).toStrictEqual(shape(nextWoken));
      expect((laneWoken.body as { status: string }).status).toBe("answered");
      const [again] = await both("POST", `/v1/messages/${id}/resolve`, {
        token: pat(),
        body: JSON.stringify({ resolution: "declined" }),
      });
      expect(again.status).toBe(409);
    },
  },
  {
    name: "a poll with since: the status as of then",
    run: async () => {
      await both("GET", `/v1/messages/${state.id}?since=2000-01-01T00:00:00Z`, { token: key() });
      await both("GET", `/v1/messages/${state.id}?since=2999-01-01T00:00:00Z`, { token: key() });
    },
  },
  {
    name: "a ?session= resolve: unknown is 404 for an agent and a person, ended is 410",
    run: async () => {
      const id = await submitAsk(hub.url);
      const unknown = "sess_00000000000000000000000000";
      const body = JSON.stringify({ resolution: "answered", value: "x" });
      const [agentUnknown] = await both("POST", `/v1/messages/${id}/resolve?session=${unknown}`, {
        token: key(),
        body,
      });
      expect(agentUnknown.status).toBe(404);
      const [personAny] = await both("POST", `/v1/messages/${id}/resolve?session=${unknown}`, { token: pat(), body });
      expect(personAny.status).toBe(404);
      const registered = await call(hub.url, "POST", "/v1/sessions", { token: key() });
      expect(registered.status).toBe(201);
      const session = (registered.body as { session: { id: string } }).session.id;
      expect((await call(hub.url, "DELETE", `/v1/sessions/${session}`, { token: key() })).status).toBe(200);
      const [ended] = await both("POST", `/v1/messages/${id}/resolve?session=${session}`, { token: key(), body });
      expect(ended.status).toBe(410);
    },
  },
  {
    name: "a body over the limit is refused, and the next request on the same keep-alive connection is answered",
    run: async () => {
      const over = ask({ padding: "x".repeat(MAX_BODY) });
      const run = async (base: string) => {
        const pool = pooled(base);
        try {
          const refused = await pool.send("POST", "/v1/messages", over);
          const next = await pool.send("GET", `/v1/messages/${state.id}`);
          return {
            refused: { status: refused.status, body: JSON.parse(refused.body), close: refused.close },
            next: { status: next.status, reused: next.reused },
          };
        } finally {
          pool.close();
        }
      };
      const [lane, next] = [await run(hub.url), await run(nextOnly.url)];
      expect(lane).toStrictEqual(next);
      // §8.5/§8.6: over `max_body_bytes` is `422 invalid_field`, whoever reads the body.
      expect(lane.refused).toMatchObject({ status: 422, body: { error: { code: "invalid_field" } } });
      expect(lane.next.status).toBe(200);
    },
  },
  {
    name: "past the agent's budget: 429 with Retry-After",
    run: async () => {
      const rl = acme.keys[RL] as string;
      const notify = JSON.stringify(envelope("notify", RL));
      // The budget is a fixed one-minute window on this box's clock: late in one, start in the next,
      // so the burst and the refusals after it cannot straddle a boundary into a fresh budget.
      if (Date.now() % 60_000 > 45_000)
        await waitFor(
          () => {
            const into = Date.now() % 60_000;
            return into >= 250 && into <= 45_000;
          },
          { timeout: 20_000, every: 25, what: "the next one-minute rate window" },
        );
      let last: Answer | undefined;
      for (let i = 0; i < PER_MINUTE + 5 && last?.status !== 429; i++)
        last = await call(hub.url, "POST", "/v1/messages", { token: rl, body: notify });
      expect(last?.status).toBe(429);
      const [lane] = await both("POST", "/v1/messages", { token: rl, body: notify });
      expect(lane.status).toBe(429);
      expect(Number(lane.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    },
  },
  {
    name: "a client gone mid-long-poll ends the wait at once, not at its end",
    run: async () => {
      const ends = async (server: { url: string; output: () => string }) => {
        const id = await submitAsk(server.url);
        const gone = new AbortController();
        const started = Date.now();
        const parked = call(server.url, "GET", `/v1/messages/${id}?wait=25`, { token: key(), signal: gone.signal });
        await parkedPolls(1);
        gone.abort();
        await expect(parked).rejects.toThrow();
        const logged = () =>
          server
            .output()
            .split("\n")
            .some((l) => l.includes('"msg":"request"') && l.includes(`"path":"/v1/messages/${id}"`));
        await until(`the long-poll of ${id} ends`, logged);
        return Date.now() - started;
      };
      const [lane, next] = [await ends({ url: hub.url, output: () => hub.web.output() }), await ends(nextOnly)];
      expect(lane).toBeLessThan(15_000);
      expect(next).toBeLessThan(15_000);
    },
  },
];

describe("the protocol lane answers as Next does", () => {
  for (const c of CASES) it(c.name, c.run, 60_000);
});

/**
 * A body over a route's cap must not cost the client its next request (RFC 9112 §9.6, §8.6): a
 * pooling client (one keep-alive socket, as Node's fetch, Python's requests and httpx keep) sends a
 * body over the limit, gets its refusal, and its next request on the same pool is answered at once —
 * on the protocol lane (server/protocol-lane.ts), on a /v1 route Next serves, and on a page's
 * Server Action (server/request-guard.ts). Over by one byte and over by 10 MB; the second is never
 * read whole (a client that sends only the first part of such a body still gets its answer).
 */
// covers: server/unread-body.ts, server/web.ts, server/protocol-lane.ts, server/request-guard.ts, lib/http/body.ts
import http from "node:http";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";

const A = "poolbot/dev";
const hub = useHubFixture({ accounts: { acme: { agents: [A], humans: [{ handle: "alice", role: "owner" }] } } });
const acme = hub.account("acme");
const MAX = 1048576; // MA2H_MAX_BODY_BYTES's default, and the Server Action form cap

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  reused: boolean;
}

const agents: http.Agent[] = [];
afterEach(() => {
  for (const a of agents.splice(0)) a.destroy();
});
function pool(): http.Agent {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  agents.push(agent);
  return agent;
}

/**
 * One request through `agent`. A Buffer goes with its Content-Length (the route can refuse it
 * unread); a size is streamed chunked in 64 KiB pieces (the route reads until it crosses its cap).
 */
function send(
  agent: http.Agent,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Buffer | number,
): Promise<Answer> {
  const length = typeof body === "number" ? {} : { "content-length": String(body?.length ?? 0) };
  return new Promise((ok, fail) => {
    const req = http.request(`${hub.url}${path}`, { method, agent, headers: { ...headers, ...length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        ok({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString("utf8"),
          reused: req.reusedSocket,
        }),
      );
      res.on("error", fail);
    });
    // The server may answer and close before the client has written the whole body: the answer
    // counts, the write error after it does not.
    req.on("error", (err) => fail(err));
    if (typeof body === "number") {
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let left = body;
      const pump = () => {
        while (left > 0) {
          const n = Math.min(left, chunk.length);
          left -= n;
          if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
            req.once("drain", pump);
            return;
          }
        }
        req.end();
      };
      pump();
    } else req.end(body);
  });
}

const submit = (agent: http.Agent) =>
  send(
    agent,
    "POST",
    "/v1/messages",
    { authorization: `Bearer ${acme.keys[A]}`, "content-type": "application/json" },
    Buffer.from(JSON.stringify(envelope("notify", A))),
  );

/** A JSON text of exactly `size` bytes: an envelope padded with spaces. */
function jsonOf(size: number): Buffer {
  const text = JSON.stringify(envelope("notify", A));
  return Buffer.concat([Buffer.from(text), Buffer.alloc(size - text.length, 0x20)]);
}

const routes = {
  "the protocol lane (POST /v1/messages)": {
    method: "POST",
    path: () => "/v1/messages",
    headers: () => ({ authorization: `Bearer ${acme.keys[A]}`, "content-type": "application/json" }),
    status: 422,
    code: "invalid_field",
  },
  "a /v1 route Next serves (POST /v1/sessions)": {
    method: "POST",
    path: () => "/v1/sessions",
    headers: () => ({ authorization: `Bearer ${acme.keys[A]}`, "content-type": "application/json" }),
    status: 422,
    code: "invalid_field",
  },
  "a page's Server Action": {
    method: "POST",
    path: () => "/inbox",
    headers: () => ({ "next-action": "0".repeat(42), "content-type": "text/plain;charset=UTF-8" }),
    status: 400,
    code: "validation_error",
  },
} as const;

describe("a keep-alive client after a body over the cap", () => {
  for (const [name, r] of Object.entries(routes)) {
    for (const [over, label] of [
      [1, "one byte"],
      [10 * 1024 * 1024, "10 MB"],
    ] as const) {
      it(`${name}: over by ${label} (${over === 1 ? "declared" : "chunked"}), then a submit on the same pool`, async () => {
        const agent = pool();
        const first = await submit(agent);
        expect(first.status).toBe(202);
        const size = MAX + over;
        const refused = await send(agent, r.method, r.path(), r.headers(), over === 1 ? jsonOf(size) : size);
        expect(refused.status, refused.body).toBe(r.status);
        expect(JSON.parse(refused.body).error.code).toBe(r.code);
        const started = Date.now();
        const next = await submit(agent);
        expect(next.status, next.body).toBe(202);
        expect(Date.now() - started).toBeLessThan(3000);
      }, 60_000);
    }
  }
});

describe("a body far over the cap is not read whole", () => {
  for (const [name, r] of Object.entries(routes)) {
    it(`${name}: answered after the first part of a 10 MB body, and the connection closed`, async () => {
      const size = MAX + 10 * 1024 * 1024;
      const socket = net.connect(hub.web.port, "127.0.0.1");
      await new Promise<void>((ok, fail) => socket.once("connect", ok).once("error", fail));
      let received = "";
      socket.on("data", (c: Buffer) => {
        received += c.toString("latin1");
      });
      const closed = new Promise<void>((ok) => socket.once("close", () => ok()));
      socket.on("error", () => {});
      const head = Object.entries({ ...r.headers(), host: `127.0.0.1:${hub.web.port}`, "content-length": String(size) })
        .map(([k, v]) => `${k}: ${v}`)
        .join("\r\n");
      socket.write(`${r.method} ${r.path()} HTTP/1.1\r\n${head}\r\n\r\n`);
      // Twice the cap, and never more: a server that reads the body whole waits for the rest.
      socket.write(Buffer.alloc(2 * MAX, 0x20));
      await closed;
      expect(received).toMatch(new RegExp(`^HTTP/1\\.1 ${r.status} `));
      expect(received.toLowerCase()).toContain("connection: close");
      expect(received).toContain(`"code":"${r.code}"`);
    }, 30_000);
  }
});

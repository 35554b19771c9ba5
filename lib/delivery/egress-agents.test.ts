/**
 * Kept-alive push connections (egress-agents.ts) against a real loopback listener: answers to one
 * origin reuse one connection, and the pool never outlives the SSRF checks — a name that now points
 * at a refused address is refused with a pooled socket to the old address still open, and one that
 * points at another address gets a connection of its own, never the old socket (§9.4).
 */
// covers: lib/delivery/egress-agents.ts, lib/delivery/egress-send.ts
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { postJson } from "./egress";
import { createKeptAliveAgents, type KeptAliveAgents } from "./egress-agents";
import { fakeDns, installTripwire, listen, type Listener } from "./egress.harness";

const BODY = JSON.stringify({ resolution_id: "res_1", response: { value: "ship" } });

let app: Listener;
let agents: KeptAliveAgents;
let tripwire: ReturnType<typeof installTripwire>;

beforeAll(async () => {
  app = await listen("127.0.0.1"); // 127.0.0.1 only: 127.0.0.2 is refused by the kernel
});
afterAll(() => app.close());
beforeEach(() => {
  agents = createKeptAliveAgents();
  tripwire = installTripwire();
});
afterEach(() => {
  agents.destroy();
  tripwire.restore();
});

describe("kept-alive push connections", () => {
  it("answers to one origin reuse one connection; without the agents each opens its own", async () => {
    const url = `http://127.0.0.1:${app.port}/hook`;
    const allow = new Set([`http://127.0.0.1:${app.port}`]);
    const before = app.connections;
    for (let i = 0; i < 3; i++) {
      const r = await postJson(url, BODY, { headers: {}, allowLoopback: allow, keepAlive: agents });
      expect(r).toMatchObject({ ok: true, status: 200 });
    }
    expect(app.connections - before).toBe(1);
    expect(app.requests.at(-1)?.headers.connection).toBe("keep-alive");

    for (let i = 0; i < 2; i++) await postJson(url, BODY, { headers: {}, allowLoopback: allow });
    expect(app.connections - before).toBe(3);
    expect(app.requests.at(-1)?.headers.connection).toBe("close");
  });

  it("a name re-pointed at a private address is refused while a pooled socket to the old one is open", async () => {
    const origin = `http://callback.test:${app.port}`;
    const dns = fakeDns({
      "callback.test": [["127.0.0.1"], ["10.20.30.40"], ["127.0.0.2"], ["127.0.0.1"]],
    });
    const options = { headers: {}, allowLoopback: new Set([origin]), lookup: dns, keepAlive: agents };
    const url = `${origin}/hook`;
    const requestsBefore = app.requests.length;
    const connectionsBefore = app.connections;

    const first = await postJson(url, BODY, options);
    expect(first).toMatchObject({ ok: true, status: 200 });
    const pooled = agents.agentFor(origin, false).freeSockets;
    expect(Object.values(pooled).flat()).toHaveLength(1); // the socket to 127.0.0.1 waits for reuse

    // The name now answers with a private address: refused before any socket is picked.
    const refused = await postJson(url, BODY, options);
    expect(refused).toMatchObject({ ok: false, errorClass: "refused_address" });
    expect(tripwire.attempts.filter((a) => a.host === "10.20.30.40")).toEqual([]);
    expect(app.requests.length - requestsBefore).toBe(1);

    // Another (allowlisted loopback) address: its own connection, never the pooled one to 127.0.0.1.
    const elsewhere = await postJson(url, BODY, options);
    expect(elsewhere).toMatchObject({ ok: false, errorClass: "connect_error" });
    expect(tripwire.attempts.map((a) => a.host)).toContain("127.0.0.2");
    expect(app.requests.length - requestsBefore).toBe(1);

    // Back to the old address: the pooled socket serves it again.
    const again = await postJson(url, BODY, options);
    expect(again).toMatchObject({ ok: true, status: 200 });
    expect(app.requests.length - requestsBefore).toBe(2);
    expect(app.connections - connectionsBefore).toBe(1);
    expect(dns.calls).toEqual(["callback.test", "callback.test", "callback.test", "callback.test"]);
  });

  it("a pooled socket the receiver drops mid-request is a network error, not a connect error", async () => {
    const dropping = await listen("127.0.0.1", (req, res) =>
      req.url === "/drop" ? req.socket.destroy() : res.end("ok"),
    );
    try {
      const options = { headers: {}, allowLoopback: new Set([`http://127.0.0.1:${dropping.port}`]), keepAlive: agents };
      expect(await postJson(`http://127.0.0.1:${dropping.port}/ok`, BODY, options)).toMatchObject({ ok: true });
      const dropped = await postJson(`http://127.0.0.1:${dropping.port}/drop`, BODY, options);
      expect(dropped).toMatchObject({ ok: false, errorClass: "network_error" });
      expect(dropping.connections).toBe(1); // it was the pooled socket
    } finally {
      await dropping.close();
    }
  });

  it("a socket whose answer was cut short is not pooled", async () => {
    const cut = await listen("127.0.0.1", (_req, res) => {
      res.writeHead(200, { "Content-Length": "100" }).write("partial");
      setTimeout(() => res.destroy(), 20);
    });
    try {
      const url = `http://127.0.0.1:${cut.port}/hook`;
      const options = { headers: {}, allowLoopback: new Set([`http://127.0.0.1:${cut.port}`]), keepAlive: agents };
      const r = await postJson(url, BODY, options);
      expect(r).toMatchObject({ ok: false });
      expect(Object.values(agents.agentFor(`http://127.0.0.1:${cut.port}`, false).freeSockets).flat()).toHaveLength(0);
    } finally {
      await cut.close();
    }
  });
});

/**
 * The client's transport and long-poll against the real Hub, through a proxy that misbehaves on
 * cue: `wait` long-polls with `since` (304s while unchanged), gives up at `timeoutMs` with the last
 * body, stops on abort; 5xx and dropped connections are retried with backoff (a submit included:
 * one message results); a 429 waits its `Retry-After` (seconds or an HTTP date), never less.
 */
// covers: packages/agent/src/wait.ts, packages/agent/src/transport.ts
import { describe, expect, it } from "vitest";
import { db } from "../../../lib/db";
import { HubUnavailableError, Ma2hClient, type Ma2hClientOptions, WaitTimeoutError } from "../src";
import { client } from "../../../test/support/hub";
import { useHubFixture } from "../../../test/support/hub-fixture";
import { type FaultProxy, startFaultProxy } from "../../../test/support/fault-proxy";

const A = "deploybot/dev-team";
const MAX_WAIT_S = 2; // the Hub's long-poll cap, so a hold ends (and a 304 shows) quickly
const hub = useHubFixture({
  accounts: { acme: { agents: [A], humans: [{ handle: "alice", role: "owner" }] } },
  env: { MA2H_MAX_WAIT_SECONDS: String(MAX_WAIT_S) },
});
const acme = hub.account("acme");
const sdk = (o: Partial<Ma2hClientOptions> = {}) =>
  new Ma2hClient({ url: hub.url, apiKey: acme.keys[A]!, agentId: A, retry: { baseDelayMs: 20 }, ...o });
const resolveAs = (id: string, value = "approve") =>
  client(hub.url, acme.tokens.alice).post(`/v1/messages/${id}/resolve`, { resolution: "answered", value });

async function withProxy(fn: (proxy: FaultProxy) => Promise<void>): Promise<void> {
  const proxy = await startFaultProxy(hub.url);
  try {
    await fn(proxy);
  } finally {
    await proxy.close();
  }
}
const gets = (p: FaultProxy) => p.seen.filter((r) => r.method === "GET" && r.path.startsWith("/v1/messages/"));

describe("wait (§8.2)", () => {
  it("long-polls with wait and since (the Hub answers 304 while unchanged), then returns the Response", async () => {
    await withProxy(async (proxy) => {
      const agent = sdk({ url: proxy.url });
      const handle = await agent.messages.ask.confirm({ title: "Slow human" });
      const t0 = Date.now();
      setTimeout(() => void resolveAs(handle.id), 5000);
      const r = await handle.wait({ timeoutMs: 30_000 });
      expect(r).toMatchObject({ in_reply_to: handle.id, resolution: "answered", response: { value: "approve" } });
      expect(Date.now() - t0).toBeGreaterThanOrEqual(4900);
      const polls = gets(proxy);
      expect(polls[0]?.path).toMatch(/\?wait=\d+$/);
      expect(polls.some((p) => /since=/.test(p.path))).toBe(true);
      // Held requests, not a busy loop: at most one GET per capped hold (plus the final one).
      expect(polls.length).toBeLessThanOrEqual(Math.ceil(5 / MAX_WAIT_S) + 2);
      expect(polls.some((p) => p.status === 304)).toBe(true);
      expect(polls.at(-1)?.status).toBe(200);
    });
  });

  it("a 304 from the Hub reads as null from get(); since is honoured", async () => {
    const agent = sdk();
    const handle = await agent.messages.ask.confirm({ title: "Unchanged" });
    const since = new Date(Date.now() + 1000).toISOString();
    expect(await agent.messages.get(handle.id, { wait: 1, since })).toBeNull();
    await resolveAs(handle.id);
    const body = await agent.messages.get(handle.id, { since });
    expect(body?.status).toBe("answered");
  });

  it("gives up at timeoutMs with a WaitTimeoutError carrying the last (open) body", async () => {
    const handle = await sdk().messages.ask.confirm({ title: "Nobody answers", state: { k: 1 } });
    const t0 = Date.now();
    const err = await handle.wait({ timeoutMs: 3000 }).catch((e) => e);
    const took = Date.now() - t0;
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect(err.body).toMatchObject({ id: handle.id, status: "open" });
    expect(err.message).not.toContain('"k"');
    expect(took).toBeGreaterThanOrEqual(2900);
    expect(took).toBeLessThan(6000);
  });

  it("stops on abort (the signal's reason), mid-hold", async () => {
    const handle = await sdk().messages.ask.confirm({ title: "Aborted wait" });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 700);
    const t0 = Date.now();
    const err = await handle.wait({ signal: controller.signal, timeoutMs: 60_000 }).catch((e) => e);
    expect(err).toBeInstanceOf(DOMException);
    expect(err.name).toBe("AbortError");
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it("reconnects after 5xx answers and dropped connections", async () => {
    await withProxy(async (proxy) => {
      const agent = sdk({ url: proxy.url });
      const handle = await agent.messages.ask.confirm({ title: "Flaky network" });
      await resolveAs(handle.id);
      let n = 0;
      proxy.rule = (r) => {
        if (r.method !== "GET" || !r.path.startsWith("/v1/messages/")) return { kind: "forward" };
        n++;
        if (n === 1) return { kind: "status", status: 503, body: '{"error":{"code":"unavailable","message":"x"}}' };
        if (n === 2) return { kind: "drop" };
        if (n === 3) return { kind: "status", status: 502, body: "<html>bad gateway</html>" };
        return { kind: "forward" };
      };
      const r = await handle.wait({ timeoutMs: 20_000 });
      expect(r.resolution).toBe("answered");
      expect(gets(proxy).map((g) => g.fault)).toEqual(["status", "drop", "status", "forward"]);
    });
  });
});

describe("transport retries (§8.3 rule applied to our calls, §8.6)", () => {
  it("a submit whose connection drops is retried with the same bytes: exactly one message", async () => {
    await withProxy(async (proxy) => {
      let posts = 0;
      proxy.rule = (r) =>
        r.method === "POST" && ++posts <= 2 ? { kind: posts === 1 ? "lose-reply" : "drop" } : { kind: "forward" };
      const key = `retry-${Date.now()}`;
      const handle = await sdk({ url: proxy.url }).ask.confirm({ title: "Retried submit", idempotencyKey: key });
      const sent = proxy.seen.filter((r) => r.method === "POST").map((r) => r.body);
      expect(sent).toHaveLength(3);
      expect(new Set(sent).size).toBe(1); // identical bytes every time
      expect(await db().message.count({ where: { agent: { agentId: A }, idempotencyKey: key } })).toBe(1);
      expect(handle.ack.status).toBe("open");
    });
  });

  it("5xx past the attempt budget is HubUnavailableError; a 4xx is never retried", async () => {
    await withProxy(async (proxy) => {
      proxy.rule = (r) =>
        r.path === "/.well-known/ma2h" ? { kind: "forward" } : { kind: "status", status: 500, body: "" };
      const err = await sdk({ url: proxy.url, retry: { maxAttempts: 3, baseDelayMs: 10 } })
        .notify({ title: "x" })
        .catch((e) => e);
      expect(err).toBeInstanceOf(HubUnavailableError);
      expect([err.status, err.code, err.receivedCode]).toEqual([500, "internal_error", null]);
      expect(proxy.seen.filter((r) => r.method === "POST")).toHaveLength(3);

      proxy.seen.length = 0;
      proxy.rule = () => ({ kind: "forward" });
      await sdk({ url: proxy.url })
        .get("msg_0000000000000000000000000a")
        .catch(() => {});
      expect(proxy.seen.filter((r) => r.path.startsWith("/v1/messages/"))).toHaveLength(1);
    });
  });

  it("429 waits Retry-After in seconds, and as an HTTP date, before retrying", async () => {
    await withProxy(async (proxy) => {
      let n = 0;
      proxy.rule = (r) => {
        if (r.method !== "POST") return { kind: "forward" };
        n++;
        if (n === 1)
          return {
            kind: "status",
            status: 429,
            headers: { "retry-after": "2" },
            body: '{"error":{"code":"rate_limited","message":"slow down"}}',
          };
        if (n === 3)
          return {
            kind: "status",
            status: 429,
            headers: { "retry-after": new Date(Date.now() + 2000).toUTCString() },
            body: "",
          };
        return { kind: "forward" };
      };
      const agent = sdk({ url: proxy.url });
      await agent.messages.notify({ title: "after a 429" });
      const posts = proxy.seen.filter((r) => r.method === "POST");
      expect(posts).toHaveLength(2);
      expect(posts[1]!.at - posts[0]!.at).toBeGreaterThanOrEqual(2000);

      await agent.messages.notify({ title: "after a dated 429" });
      const later = proxy.seen.filter((r) => r.method === "POST");
      expect(later).toHaveLength(4);
      // An HTTP date has whole seconds: at least ~1 s, and never an immediate retry.
      expect(later[3]!.at - later[2]!.at).toBeGreaterThanOrEqual(900);
    });
  });
});

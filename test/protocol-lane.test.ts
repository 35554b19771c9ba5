/**
 * The protocol lane (server/protocol-lane.ts) answers exactly as Next does: the same requests
 * — valid and invalid submits, polls, a long-poll woken by a resolve, resolves, and the paths it
 * must leave to Next — sent to a web with the lane and to one without it (MA2H_PROTOCOL_LANE=0) on
 * the same database get the same status, the same body shape and the same protocol headers. And the
 * lane really serves: Next's own response headers are absent from its answers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHub, type HubProcess } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";

const A = "lanebot/dev";
const hub = useHubFixture({ accounts: { acme: { agents: [A], humans: [{ handle: "alice", role: "owner" }] } } });
const acme = hub.account("acme");
let nextOnly: HubProcess;

beforeAll(async () => {
  nextOnly = await startHub({ databaseUrl: hub.databaseUrl, env: { MA2H_PROTOCOL_LANE: "0" } });
}, 120_000);
afterAll(async () => {
  await nextOnly?.stop();
});

interface Answer {
  status: number;
  body: unknown;
  headers: Headers;
}

async function call(
  base: string,
  method: string,
  path: string,
  init: { token?: string; body?: string; type?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers["content-type"] = init.type ?? "application/json";
  const res = await fetch(base + path, { method, headers, body: init.body });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: compared as text */
  }
  return { status: res.status, body, headers: res.headers };
}

/** What must agree: the status, the body with per-call ids blanked, and the protocol's headers. */
function shape(a: Answer) {
  const blank = (v: unknown): unknown =>
    typeof v === "string"
      ? v.replace(/(msg|res|req)_[0-9a-z]{26}/g, "$1_*").replace(/\d{4}-\d\d-\d\dT[0-9:.]+Z/g, "T")
      : Array.isArray(v)
        ? v.map(blank)
        : v && typeof v === "object"
          ? Object.fromEntries(
              Object.entries(v).map(([k, x]) => [k, k === "poll_url" || k === "review_url" ? "url" : blank(x)]),
            )
          : v;
  return {
    status: a.status,
    body: blank(a.body),
    type: a.headers.get("content-type"),
    cache: a.headers.get("cache-control"),
    retryAfter: a.headers.get("retry-after"),
    requestId: /^req_/.test(a.headers.get("x-request-id") ?? ""),
  };
}

describe("the protocol lane answers as Next does", () => {
  it("submit, poll, long-poll, resolve and their refusals; other paths stay with Next", async () => {
    const key = acme.keys[A] as string;
    const pat = acme.tokens.alice as string;
    const both = async (method: string, path: (base: string) => string, init: Parameters<typeof call>[3] = {}) => {
      const [lane, next] = await Promise.all([
        call(hub.url, method, path(hub.url), init),
        call(nextOnly.url, method, path(nextOnly.url), init),
      ]);
      expect(shape(lane), `${method} ${path("")}`).toStrictEqual(shape(next));
      return [lane, next] as const;
    };
    const ask = (over: Record<string, unknown> = {}) => JSON.stringify(envelope("ask", A, over));
    const [laneAsk, nextAsk] = await both("POST", () => "/v1/messages", { token: key, body: ask() });
    expect(laneAsk.status).toBe(202);
    // Next's own headers mark which one served: the lane writes only what the handler returned.
    expect(nextAsk.headers.get("vary")).not.toBeNull();
    expect(laneAsk.headers.get("vary")).toBeNull();
    await both("POST", () => "/v1/messages", { token: key, body: "{not json" });

    // The lane hands the handler the screened X-Forwarded-For (server/forwarded.ts), as Next does:
    // a client's own chain never reaches the access log.
    const spoofed = await fetch(`${hub.url}/v1/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "x-forwarded-for": "203.0.113.9" },
      body: ask(),
    });
    expect(spoofed.status).toBe(202);
    const requestId = spoofed.headers.get("x-request-id") as string;
    await new Promise((r) => setTimeout(r, 200));
    const line = hub.web
      .output()
      .split("\n")
      .find((l) => l.includes(requestId) && l.includes('"msg":"request"'));
    expect(JSON.parse(line as string)).toMatchObject({ client_ip: "127.0.0.1", request_id: requestId });
    await both("POST", () => "/v1/messages", { token: key, body: ask(), type: "text/plain" });
    await both("POST", () => "/v1/messages", { body: ask() });
    await both("POST", () => "/v1/messages", {
      token: key,
      body: JSON.stringify({ ...envelope("ask", A), agent: { id: "someone/else" } }),
    });
    await both("GET", () => "/v1/messages/msg_00000000000000000000000000", { token: key });
    await both("GET", () => "/v1/messages/%6Dsg_x", { token: key });
    await both("PUT", () => "/v1/messages", { token: key, body: ask() });
    await both("DELETE", () => `/v1/messages/${laneAsk.body && (laneAsk.body as { id: string }).id}`, { token: key });

    // The same message through both: poll, long-poll woken by a resolve through the lane, 409 after.
    const { id } = laneAsk.body as { id: string };
    await both("GET", () => `/v1/messages/${id}`, { token: key });
    const parked = Promise.all([
      call(hub.url, "GET", `/v1/messages/${id}?wait=20`, { token: key }),
      call(nextOnly.url, "GET", `/v1/messages/${id}?wait=20`, { token: key }),
    ]);
    await new Promise((r) => setTimeout(r, 500));
    await both("POST", () => `/v1/messages/${id}/resolve`, { token: pat, body: "{}" });
    const resolved = await call(hub.url, "POST", `/v1/messages/${id}/resolve`, {
      token: pat,
      body: JSON.stringify({ resolution: "answered", value: "ship" }),
    });
    expect(resolved.status).toBe(200);
    const [laneWoken, nextWoken] = await parked;
    expect(shape(laneWoken)).toStrictEqual(shape(nextWoken));
    expect((laneWoken.body as { status: string }).status).toBe("answered");
    await both("POST", () => `/v1/messages/${id}/resolve`, {
      token: pat,
      body: JSON.stringify({ resolution: "declined" }),
    });
    await both("GET", () => `/v1/messages/${id}?since=2000-01-01T00:00:00Z`, { token: key });
  }, 60_000);
});

/**
 * Metrics (docs/DEPLOYMENT.md "Metrics") against a real web + worker pair: `GET /metrics` is
 * refused without the token or with a wrong one (401 envelope), is not there at all without
 * MA2H_METRICS_TOKEN (Next's answer to any unknown path), and its counters move when the test
 * submits, resolves and a push is delivered — the push counted by the worker's own /metrics.
 */
// covers: lib/metrics/endpoint.ts, lib/metrics/registry.ts, lib/gauges/refresh.ts, server/web.ts, workers/main.ts
import { describe, expect, it } from "vitest";
import { addBinding } from "../lib/principals/bindings";
import { db } from "../lib/db";
import { env, resetEnvCache } from "../lib/env";
import { client, freePort, startHub } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";
import { resolveAs, submitPush, waitForDelivery } from "./support/push-kit";
import { waitUntil } from "./support/wait";

const A = "metricsbot/dev-team";
const TOKEN = "metrics-token-0123456789abcdef0123456789abcdef";
const HMAC_SECRET = "metrics-hmac-secret";
let workerPort = 0;

const hub = useHubFixture({
  accounts: { acme: { agents: [A], humans: [{ handle: "alice", role: "owner" }] } },
  receivers: 1,
  setup: async (h) => {
    workerPort = await freePort();
    await addBinding({
      agentRef: { agentId: A, accountSlug: "acme" },
      origin: h.receiver.origin,
      secretRef: "cb",
      secret: HMAC_SECRET,
    });
  },
  server: "pair",
  env: (h) => ({
    MA2H_DEV_CALLBACK_ALLOWLIST: h.receiver.origin,
    MA2H_METRICS_TOKEN: TOKEN,
    MA2H_WORKER_METRICS_PORT: String(workerPort),
  }),
});
const acme = hub.account("acme");
const workerUrl = () => `http://127.0.0.1:${workerPort}`;

async function scrape(base: string, token = TOKEN): Promise<string> {
  const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

/** The value of the sample `name` whose labels are exactly `labels` (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z0-9_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (JSON.stringify(Object.entries(got).sort()) === JSON.stringify(Object.entries(labels).sort()))
      return Number(m[3]);
  }
  return 0;
}

describe("GET /metrics is refused without the token", () => {
  for (const [what, headers] of [
    ["no Authorization", {}],
    ["a wrong token", { authorization: `Bearer ${TOKEN}x` }],
    ["a token of another scheme", { authorization: `Basic ${TOKEN}` }],
  ] as const) {
    it(`${what}: 401 with the error envelope, on the web and on the worker`, async () => {
      for (const base of [hub.url, workerUrl()]) {
        const res = await fetch(`${base}/metrics`, { headers });
        expect(res.status, base).toBe(401);
        expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
        expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
        const body = await res.json();
        expect(body.error.code).toBe("unauthenticated");
        expect(typeof body.error.message).toBe("string");
      }
    });
  }

  it("the worker's listener serves /metrics only (any other path is the 404 envelope)", async () => {
    const res = await fetch(`${workerUrl()}/v1/messages`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe("not_found");
  });
});

describe("counters move with the traffic", () => {
  it("submits by verb, HTTP by route template, resolutions by outcome, a delivered push and its latency", async () => {
    const api = client(hub.url, acme.keys[A]);
    const web0 = await scrape(hub.url);
    const worker0 = await scrape(workerUrl());

    expect((await api.post("/v1/messages", envelope("notify", A))).status).toBe(202);
    const task = await api.post("/v1/messages", envelope("task", A));
    expect(task.status).toBe(202);
    const ask = await submitPush(hub.url, acme.keys[A] as string, A, `${hub.receiver.origin}/m/ask`, {
      scheme: "hmac",
      secret_ref: "cb",
    });

    // A parked long-poll on the task and a parked drain of the (empty) mailbox show while they wait.
    const controller = new AbortController();
    const held = (path: string) =>
      fetch(`${hub.url}${path}`, {
        headers: { authorization: `Bearer ${acme.keys[A]}` },
        signal: controller.signal,
      }).catch(() => null);
    const parked = held(`/v1/messages/${task.body.id}?wait=30`);
    void held("/v1/inbox?wait=30");
    const during = await waitUntil(
      () => scrape(hub.url),
      (text) =>
        sample(text, "ma2h_parked_requests", { kind: "long_poll" }) >= 1 &&
        sample(text, "ma2h_parked_requests", { kind: "drain" }) >= 1,
      { every: 100, what: "a parked long-poll and a parked drain in the gauge" },
    );
    expect(sample(during, "ma2h_parked_requests", { kind: "long_poll" })).toBe(1);
    expect(sample(during, "ma2h_parked_requests", { kind: "drain" })).toBe(1);
    const open = await db().message.count({ where: { status: "open" } });
    expect(sample(during, "ma2h_open_items")).toBe(open);
    expect(open).toBeGreaterThanOrEqual(2);

    await resolveAs(hub.url, acme.tokens.alice as string, ask.id, { resolution: "answered", value: "ship" });
    await resolveAs(hub.url, acme.tokens.alice as string, task.body.id, { resolution: "completed" });
    expect((await parked)?.status).toBe(200); // woken by the resolve
    controller.abort();
    await waitForDelivery(ask.id, (d) => d.status === "delivered");

    const web1 = await scrape(hub.url);
    const moved = (name: string, labels: Record<string, string>) =>
      sample(web1, name, labels) - sample(web0, name, labels);
    for (const verb of ["notify", "ask", "task"]) expect(moved("ma2h_submits_total", { verb }), verb).toBe(1);
    expect(moved("ma2h_resolutions_total", { outcome: "answered" })).toBe(1);
    expect(moved("ma2h_resolutions_total", { outcome: "completed" })).toBe(1);
    const post = { route: "/v1/messages", method: "POST", status: "202" };
    expect(moved("ma2h_http_requests_total", post)).toBe(3);
    expect(moved("ma2h_http_request_duration_seconds_count", post)).toBe(3);
    const resolve = { route: "/v1/messages/:id/resolve", method: "POST", status: "200" };
    expect(moved("ma2h_http_requests_total", resolve)).toBe(2);
    // Low cardinality: no label carries a message id.
    expect(web1).not.toContain(ask.id);
    expect(web1).not.toContain(task.body.id);
    expect(sample(web1, "ma2h_open_items")).toBe(open - 2);
    expect(sample(web1, "ma2h_parked_requests", { kind: "long_poll" })).toBe(0);
    // The aborted drain was answered to nobody: counted as 499 once the web saw the client go.
    await waitUntil(
      () => scrape(hub.url),
      (text) => sample(text, "ma2h_parked_requests", { kind: "drain" }) === 0,
      { every: 100, what: "the web to see the drain's client go" },
    );
    const gone = { route: "/v1/inbox", method: "GET", status: "499" };
    expect(
      sample(await scrape(hub.url), "ma2h_http_requests_total", gone) - sample(web0, "ma2h_http_requests_total", gone),
    ).toBe(1);
    expect(sample(web1, "ma2h_metrics_source_up", { source: "database" })).toBe(1);
    expect(sample(web1, "ma2h_metrics_source_up", { source: "queues" })).toBe(1);
    expect(web1).toMatch(/^ma2h_queue_jobs\{queue="delivery-push",state="wait"\} \d+$/m);
    expect(web1).toMatch(/^ma2h_queue_lag_seconds\{queue="message-expire"\} [\d.e+-]+$/m);
    expect(web1).toMatch(/^ma2h_expiry_lag_seconds 0$/m);
    expect(web1).toMatch(/^ma2h_inbox_streams 0$/m);
    expect(sample(web1, "ma2h_db_pool_connections", { state: "in_use" })).toBeGreaterThanOrEqual(0);
    expect(sample(web1, "ma2h_db_pool_connections", { state: "idle" })).toBeGreaterThanOrEqual(1);

    const worker1 = await scrape(workerUrl());
    const delivered = { outcome: "delivered" };
    expect(
      sample(worker1, "ma2h_push_attempts_total", delivered) - sample(worker0, "ma2h_push_attempts_total", delivered),
    ).toBe(1);
    const latency = "ma2h_push_attempt_duration_seconds_count";
    expect(sample(worker1, latency, delivered) - sample(worker0, latency, delivered)).toBe(1);
    // The worker exposes what it measures, not the web's gauges.
    expect(worker1).not.toContain("ma2h_open_items");
    expect(worker1).toContain("ma2h_db_pool_connections");
  });
});

describe("without MA2H_METRICS_TOKEN", () => {
  it("a worker metrics port without the token refuses the start (fail closed)", async () => {
    const saved = { ...process.env };
    try {
      process.env.MA2H_WORKER_METRICS_PORT = "9464";
      delete process.env.MA2H_METRICS_TOKEN;
      resetEnvCache();
      expect(() => env()).toThrow(
        /MA2H_WORKER_METRICS_PORT is set but neither MA2H_WORKER_METRICS_TOKEN nor MA2H_METRICS_TOKEN is/,
      );
      process.env.MA2H_METRICS_TOKEN = "short";
      resetEnvCache();
      expect(() => env()).toThrow(/MA2H_METRICS_TOKEN: must be at least 32 bytes/);
    } finally {
      process.env = saved;
      resetEnvCache();
    }
  });

  it("/metrics is not served: it answers what any unknown path answers", async () => {
    const web = await startHub({ databaseUrl: hub.databaseUrl, mode: "web" });
    try {
      for (const headers of [{}, { authorization: `Bearer ${TOKEN}` }] as Record<string, string>[]) {
        const [metrics, unknown] = await Promise.all([
          fetch(`${web.url}/metrics`, { headers }),
          fetch(`${web.url}/no-such-page-here`, { headers }),
        ]);
        expect(metrics.status).toBe(unknown.status);
        expect(metrics.status).toBe(404);
        expect(metrics.headers.get("content-type")).toBe(unknown.headers.get("content-type"));
        expect(await metrics.text()).not.toContain("ma2h_");
      }
    } finally {
      await web.stop();
    }
  });
});

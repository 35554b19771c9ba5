/**
 * §8.3 / §9.4 delivery behaviour against live loopback receivers: 5xx retries with growing gaps and
 * one `resolution_id`; 4xx and 3xx are final (and a redirect target hears nothing); the attempt cap
 * leaves the resolution pullable; `ma2h-hub deliveries list/redrive`; revoking a binding stops its
 * pending pushes; and SSRF at the Hub level — approved origins that point at refused addresses, or
 * plaintext outside the dev allowlist, are refused without a single connection while a control push
 * of the same shape arrives.
 */
// covers: lib/delivery/push-attempt.ts, lib/delivery/schedule.ts, lib/delivery/egress.ts, lib/delivery/admin.ts, lib/principals/bindings.ts
import { afterAll, describe, expect, it } from "vitest";
import { addBinding, revokeBinding } from "../lib/principals/bindings";
import { AgentVerifier } from "./support/agent-verify";
import { client } from "./support/hub";
import { type HubFixture, useHubFixture } from "./support/hub-fixture";
import { cli, resolveAs, submitPush, waitForDelivery, type Auth } from "./support/push-kit";
import { startTcpTrap, type Receiver, type TcpTrap } from "./support/receiver";
import { staysFalse } from "./support/wait";

let rx: Receiver; // the agent's receiver
let elsewhere: Receiver; // a redirect target — bound and allowlisted, and still must hear nothing
let revocable: Receiver; // its own binding, revoked mid-retry
let prefixed: Receiver; // bound under a path prefix
let prefixedWhole: string; // its whole-origin binding, revoked mid-test
const traps: Record<string, TcpTrap> = {};
let revocableBinding: string;
const A = "deploybot/dev-team";
const SECRET = "retry-secret";
const HMAC: Auth = { scheme: "hmac", secret_ref: "cb" };
const SWEEP_MS = 2000;

const hub = useHubFixture({
  accounts: { acme: { agents: [A], humans: [{ handle: "alice", role: "owner" }] } },
  receivers: 4,
  setup,
  server: "pair",
  env: () => ({
    MA2H_DEV_CALLBACK_ALLOWLIST: [
      rx.origin,
      elsewhere.origin,
      revocable.origin,
      prefixed.origin,
      "http://169.254.169.254:80",
      "http://10.0.0.1:80",
    ].join(","),
    MA2H_PUSH_BASE_DELAY_MS: "500",
    MA2H_PUSH_MAX_ATTEMPTS: "5",
    MA2H_PUSH_TIMEOUT_MS: "1500",
    MA2H_DELIVERY_SWEEP_MS: String(SWEEP_MS),
  }),
});
const acme = hub.account("acme");

/** The receivers, the TCP traps, and the bindings (approved, some never deliverable). */
async function setup(h: HubFixture): Promise<void> {
  [rx, elsewhere, revocable, prefixed] = h.receivers as [Receiver, Receiver, Receiver, Receiver];
  traps.alias = await startTcpTrap("127.0.0.2");
  traps.tls = await startTcpTrap("127.0.0.1");
  traps.plain = await startTcpTrap("127.0.0.1");
  const approve = (origin: string, ref = "cb", secret = SECRET) =>
    addBinding({ agentRef: { agentId: A, accountSlug: "acme" }, origin, secretRef: ref, secret });
  await approve(rx.origin);
  await approve(elsewhere.origin);
  revocableBinding = (await approve(revocable.origin)).id;
  prefixedWhole = (await approve(prefixed.origin)).id;
  await addBinding({
    agentRef: { agentId: A, accountSlug: "acme" },
    origin: prefixed.origin,
    pathPrefix: "/hooks",
    secretRef: "cb",
    secret: SECRET,
  });
  // Approved by an admin, yet not deliverable: each points at a refused address or is plaintext
  // outside the dev allowlist.
  for (const origin of [
    `http://127.0.0.2:${traps.alias.port}`, // loopback alias, not allowlisted
    `https://localhost:${traps.tls.port}`, // TLS, but resolves to loopback
    `http://127.0.0.1:${traps.plain.port}`, // plaintext loopback, not allowlisted
    `https://127.0.0.1:${traps.plain.port}`, // the allowlist is per scheme
    `http://localhost:${rx.port}`, // the receiver's own port under another host name
    "http://169.254.169.254", // allowlisted below: the list waives only loopback
    "http://10.0.0.1",
  ]) {
    await approve(origin);
  }
}

afterAll(async () => {
  await Promise.all(Object.values(traps).map((t) => t.close()));
});

const push = (url: string, auth: Auth = HMAC) => submitPush(hub.web.url, acme.keys[A] as string, A, url, auth);
const answer = (id: string) =>
  resolveAs(hub.web.url, acme.tokens.alice as string, id, { resolution: "answered", value: "ship" });
const signatureOf = (h: Record<string, unknown>) => {
  const [, t, jti] = /^t=(\d+),jti=([^,]+),v1=/.exec(String(h["ma2h-signature"])) ?? [];
  return { t: Number(t), jti: jti as string };
};

describe("retries", () => {
  it("500, 500, 200 → exactly three attempts, growing gaps, fresh t and jti, one resolution_id, one body", async () => {
    rx.script("/r/flaky", [500, 500], 200);
    const sent = await push(`${rx.origin}/r/flaky`);
    const committed = await answer(sent.id);
    const got = await rx.waitFor("/r/flaky", 3, 15_000);
    const d = await waitForDelivery(sent.id, (row) => row.status !== "pending");
    expect(d.status).toBe("delivered");
    expect(d.attempts).toBe(3);
    expect(d.attemptLog.map((a) => [a.attempt, a.statusCode, a.outcome])).toEqual([
      [1, 500, "retry"],
      [2, 500, "retry"],
      [3, 200, "delivered"],
    ]);
    await staysFalse(() => rx.at("/r/flaky").length > 3, 1500, "a fourth attempt after the delivery");
    expect(rx.at("/r/flaky")).toHaveLength(3);

    expect(got[0]!.at - committed).toBeLessThan(2000);
    const gap1 = got[1]!.at - got[0]!.at;
    const gap2 = got[2]!.at - got[1]!.at;
    expect(gap1).toBeGreaterThanOrEqual(450 - 250); // base 500 ms ±10 %, claimable 250 ms early
    expect(gap2).toBeGreaterThan(gap1);
    expect(gap2).toBeGreaterThanOrEqual(900 - 250);

    const sigs = got.map((g) => signatureOf(g.headers));
    expect(new Set(sigs.map((s) => s.jti)).size).toBe(3);
    expect(sigs[2]!.t).toBeGreaterThan(sigs[0]!.t); // ≥ 1.35 s apart: a new second
    for (const g of got) expect(g.body).toBe(got[0]!.body);
    const bodies = got.map((g) => JSON.parse(g.body));
    expect(new Set(bodies.map((b) => b.resolution_id)).size).toBe(1);
    // Each attempt verifies on its own, and the agent's replay cache accepts all three (new jti each).
    const verifier = new AgentVerifier({ callbackUrl: sent.url, hmacSecrets: [SECRET] });
    for (const g of got) expect(await verifier.verify(g.headers, g.body, g.at / 1000)).toMatchObject({ ok: true });
  });

  it("400 → one attempt, failed; the resolution stays pullable", async () => {
    rx.script("/r/bad-request", [], 400);
    const sent = await push(`${rx.origin}/r/bad-request`);
    await answer(sent.id);
    await rx.waitFor("/r/bad-request", 1);
    const d = await waitForDelivery(sent.id, (row) => row.status !== "pending");
    expect([d.status, d.attempts, d.attemptLog[0]?.statusCode]).toEqual(["failed", 1, 400]);
    await staysFalse(() => rx.at("/r/bad-request").length > 1, 1500, "a retry of the final 400");
    expect(rx.at("/r/bad-request")).toHaveLength(1);
    const got = await client(hub.web.url, acme.keys[A]).get(`/v1/messages/${sent.id}`);
    expect(got.body.response.resolution_id).toBe(d.resolutionId);
  });

  it("302 and 307 → one attempt each, final, and the redirect target receives nothing", async () => {
    for (const [path, status] of [
      ["/r/found", 302],
      ["/r/temporary", 307],
    ] as const) {
      rx.script(path, [], { status, headers: { location: `${elsewhere.origin}/stolen${path}` } });
      const sent = await push(`${rx.origin}${path}`);
      await answer(sent.id);
      await rx.waitFor(path, 1);
      const d = await waitForDelivery(sent.id, (row) => row.status !== "pending");
      expect([d.status, d.attempts, d.attemptLog[0]?.statusCode]).toEqual(["failed", 1, status]);
    }
    await staysFalse(
      () => rx.at("/r/found").length > 1 || rx.at("/r/temporary").length > 1 || elsewhere.requests.length > 0,
      1500,
      "a retry of a final redirect, or a request to its target",
    );
    expect(rx.at("/r/found")).toHaveLength(1);
    expect(rx.at("/r/temporary")).toHaveLength(1);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it("always 503 → stops at MA2H_PUSH_MAX_ATTEMPTS (5), exhausted, still pullable; CLI list and redrive", async () => {
    rx.script("/r/down", [], 503);
    const sent = await push(`${rx.origin}/r/down`);
    await answer(sent.id);
    const d = await waitForDelivery(sent.id, (row) => row.status !== "pending", 30_000);
    expect(d.status).toBe("exhausted");
    expect(d.attempts).toBe(5);
    await staysFalse(() => rx.at("/r/down").length > 5, 1500, "an attempt past the cap");
    expect(rx.at("/r/down")).toHaveLength(5);
    const got = await client(hub.web.url, acme.keys[A]).get(`/v1/messages/${sent.id}`);
    expect([got.status, got.body.status, got.body.response.resolution_id]).toEqual([200, "answered", d.resolutionId]);

    const listed = await cli(hub.databaseUrl, ["deliveries", "list", "--message", sent.id]);
    expect(listed.code, listed.stderr).toBe(0);
    const [view] = listed.json.deliveries;
    expect(view).toMatchObject({
      id: d.id,
      message_id: sent.id,
      resolution_id: d.resolutionId,
      status: "exhausted",
      next_attempt_at: null,
      delivered_at: null,
    });
    expect(view.attempts).toHaveLength(5);
    for (const [i, a] of view.attempts.entries()) {
      expect(a).toMatchObject({
        attempt: i + 1,
        status_code: 503,
        error_class: null,
        outcome: i < 4 ? "retry" : "exhausted",
      });
      expect(Number.isNaN(Date.parse(a.at))).toBe(false);
      expect(typeof a.latency_ms).toBe("number");
    }
    expect(JSON.stringify(listed.json)).not.toContain(SECRET);

    rx.script("/r/down", [], 200); // the agent is back
    const redriven = await cli(hub.databaseUrl, ["deliveries", "redrive", d.id]);
    expect(redriven.code, redriven.stderr).toBe(0);
    expect(redriven.json).toEqual({ delivery: { id: d.id, status: "pending" } });
    const t0 = Date.now();
    await rx.waitFor("/r/down", 6, SWEEP_MS + 5000);
    expect(Date.now() - t0).toBeLessThan(SWEEP_MS + 5000);
    const after = await waitForDelivery(sent.id, (row) => row.status !== "pending");
    expect([after.status, after.attempts, after.resolutionId]).toEqual(["delivered", 6, d.resolutionId]);
    expect(JSON.parse(rx.at("/r/down")[5]!.body)).toEqual(JSON.parse(rx.at("/r/down")[0]!.body));
    const again = await cli(hub.databaseUrl, ["deliveries", "redrive", d.id]);
    expect(again.code).not.toBe(0);
    expect(again.json.error.code).toBe("invalid_field");
  });

  it("records the error class of network errors and timeouts, then delivers", async () => {
    rx.script("/r/drop", ["drop", { status: 200, delayMs: 2500 }], 200); // dropped, then slower than the 1.5 s timeout
    const sent = await push(`${rx.origin}/r/drop`);
    await answer(sent.id);
    const d = await waitForDelivery(sent.id, (row) => row.status !== "pending", 20_000);
    expect(d.status).toBe("delivered");
    const listed = await cli(hub.databaseUrl, ["deliveries", "list", "--message", sent.id]);
    const attempts = listed.json.deliveries[0].attempts as Array<Record<string, unknown>>;
    expect(attempts.map((a) => [a.status_code, a.error_class, a.outcome])).toEqual([
      [null, "network_error", "retry"],
      [null, "timeout", "retry"],
      [200, null, "delivered"],
    ]);
    expect(attempts[1]!.latency_ms as number).toBeGreaterThanOrEqual(1400);
    const bodies = rx.at("/r/drop").map((g) => JSON.parse(g.body).resolution_id);
    expect(new Set(bodies).size).toBe(1);
  });
});

describe("a bound path prefix holds", () => {
  const ESCAPES = [
    "/hooks/..%2fadmin",
    "/hooks/%2e%2e/admin",
    "/hooks/..%5cadmin",
    "/hooks;x/../admin",
    "/hooks//admin",
    "/hooks/../admin",
  ];

  it("at delivery: a URL accepted under the whole origin is refused once only the prefix covers it", async () => {
    const escaped = await push(`${prefixed.origin}/hooks/..%2fadmin`);
    const control = await push(`${prefixed.origin}/hooks/ok`);
    await revokeBinding(prefixedWhole); // only the /hooks binding is left
    await answer(escaped.id);
    await answer(control.id);
    const refused = await waitForDelivery(escaped.id, (row) => row.status !== "pending", 15_000);
    const delivered = await waitForDelivery(control.id, (row) => row.status !== "pending", 15_000);
    expect([refused.status, delivered.status]).toEqual(["binding_revoked", "delivered"]);
    expect(prefixed.requests.map((r) => r.url.split("?")[0])).toEqual(["/hooks/ok"]);
  });

  it.each(ESCAPES)("at submit: %s is 422 invalid_field naming the path, and nothing is created", async (path) => {
    const key = `escape-${Date.now()}-${Math.random()}`;
    const res = await client(hub.web.url, acme.keys[A]).post("/v1/messages", {
      ma2h_version: "0.5",
      type: "ask",
      created_at: "2026-12-01T12:00:00Z",
      agent: { id: A, run_id: "r", runtime: "cli" },
      title: "escape",
      idempotency_key: key,
      request: { mode: "confirm", callback: { mode: "push", url: `${prefixed.origin}${path}`, auth: HMAC } },
    });
    expect([res.status, res.body.error?.code]).toEqual([422, "invalid_field"]);
    expect(res.body.error.message).toMatch(/callback\.url path contains .* within no approved path prefix/);
    const ok = await push(`${prefixed.origin}/hooks/still-fine`);
    expect(ok.id).toMatch(/^msg_/);
  });

  it("at submit: a backslash is no URI at all (400 validation_error)", async () => {
    const res = await client(hub.web.url, acme.keys[A]).post("/v1/messages", {
      ma2h_version: "0.5",
      type: "ask",
      created_at: "2026-12-01T12:00:00Z",
      agent: { id: A, run_id: "r", runtime: "cli" },
      title: "escape",
      idempotency_key: `escape-bs-${Date.now()}`,
      request: {
        mode: "confirm",
        callback: { mode: "push", url: `${prefixed.origin}/hooks\\..\\admin`, auth: HMAC },
      },
    });
    expect([res.status, res.body.error?.code]).toEqual([400, "validation_error"]);
  });
});

describe("revoking the binding", () => {
  it("stops the pending deliveries (binding_revoked) while pull still works", async () => {
    revocable.script("/hook", [], 503);
    const sent = await push(`${revocable.origin}/hook`);
    await answer(sent.id);
    await revocable.waitFor("/hook", 1);
    await revokeBinding(revocableBinding);
    const d = await waitForDelivery(sent.id, (row) => row.status !== "pending", 15_000);
    expect(d.status).toBe("binding_revoked");
    expect(d.attemptLog.at(-1)).toMatchObject({
      errorClass: "binding_revoked",
      statusCode: null,
      outcome: "binding_revoked",
    });
    const heard = revocable.requests.length;
    await staysFalse(() => revocable.requests.length > heard, 3000, "a push after the revocation");
    expect(revocable.requests.length).toBe(heard);
    const got = await client(hub.web.url, acme.keys[A]).get(`/v1/messages/${sent.id}`);
    expect([got.status, got.body.status, got.body.response.resolution_id]).toEqual([200, "answered", d.resolutionId]);
    // New pushes there are refused at submit.
    const refused = await client(hub.web.url, acme.keys[A]).post("/v1/messages", {
      ma2h_version: "0.5",
      type: "ask",
      created_at: "2026-12-01T12:00:00Z",
      agent: { id: A, run_id: "r", runtime: "cli" },
      title: "after revoke",
      idempotency_key: `revoked-${Date.now()}`,
      request: { mode: "confirm", callback: { mode: "push", url: `${revocable.origin}/hook`, auth: HMAC } },
    });
    expect([refused.status, refused.body.error.code]).toEqual([422, "invalid_field"]);
  });
});

describe("SSRF at the Hub level", () => {
  it("approved origins that point at refused addresses are refused with no connection; the controls arrive", async () => {
    const cases: Array<[string, string, TcpTrap | null]> = [
      [`http://127.0.0.2:${traps.alias!.port}/hook`, "refused_url", traps.alias!],
      [`https://localhost:${traps.tls!.port}/hook`, "refused_address", traps.tls!],
      [`http://127.0.0.1:${traps.plain!.port}/hook`, "refused_url", traps.plain!],
      [`http://0x7f.1:${traps.plain!.port}/hex`, "refused_url", traps.plain!], // the same place, spelled in hex
      [`https://127.0.0.1:${traps.plain!.port}/hook`, "refused_address", traps.plain!],
      [`http://localhost:${rx.port}/ssrf/host-alias`, "refused_url", null],
      ["http://169.254.169.254/latest/meta-data", "refused_address", null],
      ["http://10.0.0.1/internal", "refused_address", null],
    ];
    for (const auth of [HMAC, { scheme: "bearer", token_ref: "cb" } as Auth, null]) {
      const label = auth?.scheme ?? "none";
      const submitted = [];
      for (const [url, errorClass, trap] of cases) submitted.push({ sent: await push(url, auth), errorClass, trap });
      const control = await push(`${rx.origin}/ssrf/control-${label}`, auth);
      for (const s of [...submitted.map((x) => x.sent), control]) await answer(s.id);

      const [arrived] = await rx.waitFor(`/ssrf/control-${label}`, 1);
      if (auth?.scheme === "bearer") expect(arrived!.headers.authorization).toBe(`Bearer ${SECRET}`);
      for (const { sent, errorClass } of submitted) {
        const d = await waitForDelivery(sent.id, (row) => row.status !== "pending");
        expect([sent.url, d.status, d.attempts, d.attemptLog[0]?.errorClass]).toEqual([
          sent.url,
          "refused",
          1,
          errorClass,
        ]);
      }
    }
    await staysFalse(
      () =>
        Object.values(traps).some((t) => t.connections > 0) ||
        rx.at("/ssrf/host-alias").length > 0 ||
        elsewhere.requests.length > 0,
      1000,
      "a connection to a refused address",
    );
    for (const trap of Object.values(traps)) expect(trap.connections).toBe(0);
    expect(rx.at("/ssrf/host-alias")).toHaveLength(0);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it("refuses userinfo in a callback URL at submit", async () => {
    for (const url of [
      `http://user:pw@127.0.0.1:${rx.port}/x`,
      `http://127.0.0.1:${rx.port}@127.0.0.2:${traps.alias!.port}/x`,
    ]) {
      const res = await client(hub.web.url, acme.keys[A]).post("/v1/messages", {
        ma2h_version: "0.5",
        type: "ask",
        created_at: "2026-12-01T12:00:00Z",
        agent: { id: A, run_id: "r", runtime: "cli" },
        title: "userinfo",
        idempotency_key: `userinfo-${Date.now()}-${url.length}`,
        request: { mode: "confirm", callback: { mode: "push", url, auth: HMAC } },
      });
      expect([res.status, res.body.error.code]).toEqual([422, "invalid_field"]);
    }
  });
});

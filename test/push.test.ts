/**
 * §8.3 / §9.2 push delivery against real processes and a loopback receiver: every terminal arrives
 * signed, and an agent-side verifier written independently of @ma2h/protocol (test/support/
 * agent-verify.ts) accepts it — HMAC with the binding's secret, ed25519 through the published JWKS
 * for bearer, apikey and no-auth callbacks, with their credentials attached. The body is the §6
 * Response the GET embeds; `state` comes back verbatim; the first attempt lands within 2 s of the
 * commit; rotation switches the signing key while both stay published; push below v0.3 is refused.
 */
// covers: lib/delivery/push-attempt.ts, lib/standing-rules/apply.ts, packages/protocol/src/signing.ts, lib/keys/signing-keys.ts, lib/principals/bindings.ts, lib/principals/callback-bindings.ts
import { describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { rotateSigningKey } from "../lib/keys/signing-keys";
import { addBinding, addBindingSecret, removeBindingSecret } from "../lib/principals/bindings";
import { AgentVerifier, type Jwk } from "./support/agent-verify";
import { client } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";
import { resolveAs, submitPush, waitForDelivery, type Auth, type Submitted } from "./support/push-kit";
import type { Receiver, Received } from "./support/receiver";
import { validateOfficial } from "./support/spec";
import { elapse, staysFalse } from "./support/wait";

let rx: Receiver;
const A = "deploybot/dev-team";
const HMAC_SECRET = "hmac-secret-Ω-exactly as registered ";
const BEARER = "bearer-token-0123456789";
const API_KEY = "api-key-abcdef";
const HMAC: Auth = { scheme: "hmac", secret_ref: "cb" };

const hub = useHubFixture({
  accounts: { acme: { agents: [A], humans: [{ handle: "alice", role: "owner" }] } },
  receivers: 1,
  setup: async (h) => {
    rx = h.receiver;
    const binding = await addBinding({
      agentRef: { agentId: A, accountSlug: "acme" },
      origin: rx.origin,
      secretRef: "cb",
      secret: HMAC_SECRET,
    });
    await addBindingSecret(binding.id, "tok", BEARER);
    await addBindingSecret(binding.id, "key", API_KEY);
  },
  server: "pair",
  // The default sweep period (10 s) stays: a push inside 2 s can only come from the wake on commit.
  env: (h) => ({ MA2H_DEV_CALLBACK_ALLOWLIST: h.receiver.origin, MA2H_PUSH_BASE_DELAY_MS: "500" }),
});
const acme = hub.account("acme");

const api = () => client(hub.web.url, acme.keys[A]);
const jwksUrl = () => `${hub.web.url}/.well-known/ma2h-keys`;
const resolve = (id: string, body: Record<string, unknown>) =>
  resolveAs(hub.web.url, acme.tokens.alice as string, id, body);
const push = (path: string, auth: Auth = HMAC, options: Parameters<typeof submitPush>[5] = {}) =>
  submitPush(hub.web.url, acme.keys[A] as string, A, `${rx.origin}${path}?agent=deploybot&n=${path.length}`, auth, {
    name: path,
    ...options,
  });

/** Verifies one received push as an agent would and checks it against the GET. */
async function expectVerifiedPush(got: Received, sent: Submitted, verifier: AgentVerifier, resolution: string) {
  const verdict = await verifier.verify(got.headers, got.body, got.at / 1000);
  expect(verdict, `push for ${sent.id}`).toMatchObject({ ok: true });
  if (!verdict.ok) throw new Error("unverified");
  expect(got.method).toBe("POST");
  expect(got.headers["content-type"]).toBe("application/json");
  expect(got.url).toBe(new URL(sent.url).pathname + new URL(sent.url).search);
  expect(validateOfficial("response.schema.json", verdict.body)).toEqual([]);
  expect(verdict.body).toMatchObject({ in_reply_to: sent.id, resolution, ma2h_version: "0.5" });
  expect(verdict.body.state).toEqual(sent.state); // §9.3: round-tripped verbatim
  const pulled = await api().get(`/v1/messages/${sent.id}`);
  expect(pulled.body.response).toEqual(verdict.body); // push parity: the GET is the same Response
  // Signed at send time: `t` is the attempt's own second (floor), never a later one, and close to the
  // receipt — the bound leaves a loaded box seconds between signing and receipt (CI measured 2.45 s).
  // That each attempt signs afresh (a retry's `t` is its own) is push-retry.test.ts's.
  expect(got.at / 1000 - verdict.t).toBeGreaterThanOrEqual(-1);
  expect(got.at / 1000 - verdict.t).toBeLessThan(10);
  return verdict;
}

describe("a signed push for every terminal", () => {
  it("answered, declined, cancelled, completed, dismissed and expired (ask and task) all verify (hmac)", async () => {
    const v = (s: Submitted) => new AgentVerifier({ callbackUrl: s.url, hmacSecrets: [HMAC_SECRET] });
    const soon = () => ({ expires_at: new Date(Date.now() + 2500).toISOString() });
    const expiredAsk = await push("/t/expired-ask", HMAC, { over: soon() });
    const expiredTask = await push("/t/expired-task", HMAC, { type: "task", over: soon() });
    const defaulted = await push("/t/expired-default", HMAC, {
      over: {
        ...soon(),
        request: {
          mode: "select",
          options: [
            { value: "ship", label: "Ship" },
            { value: "hold", label: "Hold" },
          ],
          default_on_expire: "hold",
        },
      },
    });
    const answered = await push("/t/answered");
    const declined = await push("/t/declined");
    const cancelled = await push("/t/cancelled");
    const completed = await push("/t/completed", HMAC, { type: "task" });
    const dismissed = await push("/t/dismissed", HMAC, { type: "task" });

    const committed: Record<string, number> = {};
    committed.answered = await resolve(answered.id, { resolution: "answered", value: "ship", comment: "go — ✓" });
    committed.declined = await resolve(declined.id, { resolution: "declined" });
    const c = await api().post(`/v1/messages/${cancelled.id}/cancel`);
    expect(c.status).toBe(200);
    committed.cancelled = Date.now();
    committed.completed = await resolve(completed.id, {
      resolution: "completed",
      comment: "rotated",
      checklist: [{ text: "rotate", done: true }],
    });
    committed.dismissed = await resolve(dismissed.id, { resolution: "dismissed" }); // no `response` at all

    const cases: Array<[string, Submitted, string]> = [
      ["answered", answered, "answered"],
      ["declined", declined, "declined"],
      ["cancelled", cancelled, "cancelled"],
      ["completed", completed, "completed"],
      ["dismissed", dismissed, "dismissed"],
      ["expired-ask", expiredAsk, "expired"],
      ["expired-task", expiredTask, "expired"],
      ["expired-default", defaulted, "expired"],
    ];
    for (const [name, sent, resolution] of cases) {
      const [got] = await rx.waitFor(`/t/${name}`, 1, 20_000);
      const verdict = await expectVerifiedPush(got!, sent, v(sent), resolution);
      if (committed[name] !== undefined)
        // The commit wakes the worker (NOTIFY): milliseconds on an idle Hub; a loaded CI box took 2.3 s.
        expect(got!.at - committed[name]!, `${name}: first attempt within 5 s`).toBeLessThan(5000);
      expect(got!.headers.authorization).toBeUndefined();
      expect(got!.headers["x-api-key"]).toBeUndefined();
      const d = await waitForDelivery(sent.id, (row) => row.status === "delivered");
      expect(d.attempts).toBe(1);
      expect(d.resolutionId).toBe(verdict.body.resolution_id);
    }
    // The shapes §9.2 binds differently: no `response` → resolved_at null in the context.
    const dismissedBody = JSON.parse(rx.at("/t/dismissed")[0]!.body);
    expect("response" in dismissedBody).toBe(false);
    const expiredTaskBody = JSON.parse(rx.at("/t/expired-task")[0]!.body);
    expect("response" in expiredTaskBody).toBe(false);
    expect(JSON.parse(rx.at("/t/expired-default")[0]!.body)).toMatchObject({
      defaulted: true,
      response: { actor: "system:default_on_expire", value: "hold" },
    });
    expect(JSON.parse(rx.at("/t/answered")[0]!.body).response).toMatchObject({
      value: "ship",
      actor: "human:alice",
      comment: "go — ✓",
    });
    // Exactly one push each: a window in which no second one may arrive.
    await staysFalse(() => cases.some(([name]) => rx.at(`/t/${name}`).length > 1), 1000, "a second push");
    for (const [name] of cases) expect(rx.at(`/t/${name}`)).toHaveLength(1);
  });
});

describe("credentials per callback scheme", () => {
  it("a standing rule's answer is pushed signed like a person's, and verifies (docs/policies.md)", async () => {
    const { answerAndRemember } = await import("../lib/standing-rules/store");
    const alice = await db().user.findUniqueOrThrow({ where: { email: "alice@acme.test" }, select: { id: true } });
    const confirm = { request: { mode: "confirm" }, title: "Deploy build #7" };
    const first = await push("/rule/first", HMAC, { over: confirm });
    await answerAndRemember(alice.id, first.id, { value: "approve", duration: "30m", titlePattern: "Deploy build #*" });
    const byRule = await push("/rule/second", HMAC, { over: { ...confirm, title: "Deploy build #8" } });
    const [got] = await rx.waitFor("/rule/second", 1, 20_000);
    const verdict = await expectVerifiedPush(
      got as Received,
      byRule,
      new AgentVerifier({ callbackUrl: byRule.url, hmacSecrets: [HMAC_SECRET] }),
      "answered",
    );
    expect(verdict.body.response).toMatchObject({
      actor: expect.stringMatching(/^system:rule\/rule_[0-9a-z]+$/),
      value: "approve",
      comment: "answered by a standing rule set by human:alice",
    });
    await db().standingRule.deleteMany({});
  });

  it("bearer and apikey attach the named credential and sign ed25519; no auth sends no credential", async () => {
    const bearer = await push("/s/bearer", { scheme: "bearer", token_ref: "tok" });
    const apikey = await push("/s/apikey", { scheme: "apikey", token_ref: "key" });
    const none = await push("/s/none", null);
    for (const s of [bearer, apikey, none]) await resolve(s.id, { resolution: "answered", value: "hold" });
    const byPath = async (path: string, sent: Submitted) => {
      const [got] = await rx.waitFor(path, 1);
      const verdict = await expectVerifiedPush(
        got!,
        sent,
        new AgentVerifier({ callbackUrl: sent.url, jwksUrl: jwksUrl() }),
        "answered",
      );
      expect(verdict).toMatchObject({ alg: "ed25519" });
      // ...and no HMAC secret the agent holds verifies it.
      const asHmac = new AgentVerifier({ callbackUrl: sent.url, hmacSecrets: [HMAC_SECRET, BEARER, API_KEY] });
      expect(await asHmac.verify(got!.headers, got!.body, got!.at / 1000)).toEqual({
        ok: false,
        reason: "bad_signature",
      });
      return got!;
    };
    const b = await byPath("/s/bearer", bearer);
    expect(b.headers.authorization).toBe(`Bearer ${BEARER}`);
    expect(b.headers["x-api-key"]).toBeUndefined();
    const k = await byPath("/s/apikey", apikey);
    expect(k.headers["x-api-key"]).toBe(API_KEY);
    expect(k.headers.authorization).toBeUndefined();
    const n = await byPath("/s/none", none);
    expect(n.headers.authorization).toBeUndefined();
    expect(n.headers["x-api-key"]).toBeUndefined();

    const keys = (await fetch(jwksUrl()).then((r) => r.json())) as { keys: Array<Record<string, unknown>> };
    expect(keys.keys.length).toBeGreaterThanOrEqual(1);
    for (const key of keys.keys) expect(Object.keys(key).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x"]);
  });

  it("an hmac push verifies with the binding's secret only, never with the Hub's ed25519 keys", async () => {
    const sent = await push("/s/hmac");
    await resolve(sent.id, { resolution: "answered", value: "ship" });
    const [got] = await rx.waitFor("/s/hmac", 1);
    const viaJwks = new AgentVerifier({ callbackUrl: sent.url, jwksUrl: jwksUrl() });
    expect(await viaJwks.verify(got!.headers, got!.body, got!.at / 1000)).toEqual({
      ok: false,
      reason: "bad_signature",
    });
    const wrong = new AgentVerifier({ callbackUrl: sent.url, hmacSecrets: [HMAC_SECRET.trim()] }); // the exact bytes matter
    expect(await wrong.verify(got!.headers, got!.body, got!.at / 1000)).toEqual({ ok: false, reason: "bad_signature" });
    const right = new AgentVerifier({ callbackUrl: sent.url, hmacSecrets: ["an-old-secret", HMAC_SECRET] });
    expect(await right.verify(got!.headers, got!.body, got!.at / 1000)).toMatchObject({
      ok: true,
      alg: "hmac-sha256",
      secret: HMAC_SECRET,
    });
  });

  it("the agent's checks bite on a real push: tampering, another URL, the window, a replay", async () => {
    const sent = await push("/s/checks");
    await resolve(sent.id, { resolution: "answered", value: "ship", comment: "fine" });
    const [got] = await rx.waitFor("/s/checks", 1);
    const at = got!.at / 1000;
    const fresh = () => new AgentVerifier({ callbackUrl: sent.url, hmacSecrets: [HMAC_SECRET] });
    const body = JSON.parse(got!.body);
    const tamper = (f: (b: any) => void) => {
      const copy = structuredClone(body);
      f(copy);
      return JSON.stringify(copy);
    };
    for (const forged of [
      tamper((b) => (b.response.value = "hold")),
      tamper((b) => (b.response.comment = "fine!")),
      tamper((b) => (b.state.sealed = "other")),
      tamper((b) => delete b.state),
      tamper((b) => (b.resolution_id = "res_00000000000000000000000000")),
      tamper((b) => (b.response.resolved_at = "2026-01-01T00:00:00.000Z")),
    ]) {
      expect(await fresh().verify(got!.headers, forged, at)).toEqual({ ok: false, reason: "bad_signature" });
    }
    // The advisory fields §9.2 leaves unbound may change without breaking the signature.
    expect(
      await fresh().verify(
        got!.headers,
        tamper((b) => (b.defaulted = true)),
        at,
      ),
    ).toMatchObject({ ok: true });
    // Bound to the URL exactly as registered: query string included, never normalised.
    const bare = new AgentVerifier({ callbackUrl: sent.url.split("?")[0] as string, hmacSecrets: [HMAC_SECRET] });
    expect(await bare.verify(got!.headers, got!.body, at)).toEqual({ ok: false, reason: "bad_signature" });
    const t = Number(/t=(\d+)/.exec(String(got!.headers["ma2h-signature"]))![1]);
    expect(await fresh().verify(got!.headers, got!.body, t + 121)).toEqual({ ok: false, reason: "stale" });
    expect(await fresh().verify(got!.headers, got!.body, t - 121)).toEqual({ ok: false, reason: "stale" });
    expect(await fresh().verify(got!.headers, got!.body, t + 120)).toMatchObject({ ok: true });
    const once = fresh();
    expect(await once.verify(got!.headers, got!.body, at)).toMatchObject({ ok: true });
    expect(await once.verify(got!.headers, got!.body, at)).toEqual({ ok: false, reason: "replay" });
    // The header carries exactly t, jti and v1.
    expect(String(got!.headers["ma2h-signature"])).toMatch(/^t=\d+,jti=[^,\s]+,v1=[A-Za-z0-9_-]{43}$/);
  });
});

describe("rotating an HMAC secret (docs/agents.md)", () => {
  it("add a second ref, switch the agent to it, remove the first: old-ref pushes stop, new ones verify", async () => {
    const OLD = "rotation-old-secret";
    const NEW = "rotation-new-secret";
    const b = await addBinding({
      agentRef: { agentId: A, accountSlug: "acme" },
      origin: rx.origin,
      pathPrefix: "/rot",
      secretRef: "rot-1",
      secret: OLD,
    });
    rx.script("/rot/pending", [], 503); // an old-ref push still retrying when the ref goes
    const pending = await push("/rot/pending", { scheme: "hmac", secret_ref: "rot-1" });
    await resolve(pending.id, { resolution: "answered", value: "ship" });
    const [first] = await rx.waitFor("/rot/pending", 1);
    const agent = (url: string) => new AgentVerifier({ callbackUrl: url, hmacSecrets: [OLD, NEW] }); // holds both meanwhile
    expect(await agent(pending.url).verify(first!.headers, first!.body, first!.at / 1000)).toMatchObject({
      ok: true,
      secret: OLD,
    });

    await addBindingSecret(b.id, "rot-2", NEW);
    const switched = await push("/rot/new", { scheme: "hmac", secret_ref: "rot-2" });
    await resolve(switched.id, { resolution: "answered", value: "hold" });
    const [fresh] = await rx.waitFor("/rot/new", 1);
    expect(await agent(switched.url).verify(fresh!.headers, fresh!.body, fresh!.at / 1000)).toMatchObject({
      ok: true,
      secret: NEW,
    });

    await removeBindingSecret(b.id, "rot-1");
    const stopped = await waitForDelivery(pending.id, (d) => d.status !== "pending", 15_000);
    expect(stopped.status).toBe("binding_revoked");
    const oldRef = await api().post(
      "/v1/messages",
      envelope("ask", A, {
        request: {
          mode: "confirm",
          callback: { mode: "push", url: `${rx.origin}/rot/x`, auth: { scheme: "hmac", secret_ref: "rot-1" } },
        },
      }),
    );
    expect([oldRef.status, oldRef.body.error.code]).toEqual([422, "invalid_field"]);
    const still = await push("/rot/after", { scheme: "hmac", secret_ref: "rot-2" });
    await resolve(still.id, { resolution: "answered", value: "ship" });
    const [later] = await rx.waitFor("/rot/after", 1);
    expect(
      await new AgentVerifier({ callbackUrl: still.url, hmacSecrets: [NEW] }).verify(
        later!.headers,
        later!.body,
        later!.at / 1000,
      ),
    ).toMatchObject({ ok: true });
  });
});

describe("signing keys", () => {
  it("after a rotation of the account's key new pushes verify with the new kid and both keys are published", async () => {
    const first = await push("/k/before", null);
    await resolve(first.id, { resolution: "answered", value: "ship" });
    const [old] = await rx.waitFor("/k/before", 1);
    // The account's push key, as its agents learn it (the Hub-wide key signs directives, not pushes).
    const mine = (await api().get("/v1/agents/me")).body.push_signing.key_id as string;
    const before = (await (await fetch(jwksUrl())).json()) as { keys: Array<{ kid: string }> };
    expect(before.keys.map((k) => k.kid)).toContain(mine);
    const agentSide = new AgentVerifier({ callbackUrl: first.url, jwksUrl: jwksUrl() });
    const oldVerdict = await agentSide.verify(old!.headers, old!.body, old!.at / 1000);
    expect(oldVerdict).toMatchObject({ ok: true, kid: mine });

    const rotated = await rotateSigningKey({ accountSlug: "acme" });
    const res = await fetch(jwksUrl());
    expect(res.headers.get("cache-control")).toBe("max-age=300");
    const after = (await res.json()) as { keys: Array<{ kid: string }> };
    expect(after.keys.map((k) => k.kid)).toEqual([rotated.kid, ...before.keys.map((k) => k.kid)]);
    expect(JSON.stringify(after)).not.toMatch(/"d"/);
    // A push signed just before the rotation still verifies against the new document.
    const late = new AgentVerifier({ callbackUrl: first.url, jwksUrl: jwksUrl(), keys: after.keys as Jwk[] });
    expect(await late.verify(old!.headers, old!.body, old!.at / 1000)).toMatchObject({
      ok: true,
      kid: mine,
    });

    // Processes re-read the active key within 5 s (docs/decisions/delivery-and-push.md); the old one keeps verifying meanwhile.
    await elapse(
      5500,
      "the web and worker processes cache the active signing key for up to 5 s; no clock reaches into them",
    );
    const second = await push("/k/after", null);
    await resolve(second.id, { resolution: "answered", value: "hold" });
    const [fresh] = await rx.waitFor("/k/after", 1);
    const verifier = new AgentVerifier({ callbackUrl: second.url, jwksUrl: jwksUrl() });
    expect(await verifier.verify(fresh!.headers, fresh!.body, fresh!.at / 1000)).toMatchObject({
      ok: true,
      kid: rotated.kid,
    });
    // An agent still holding the JWKS from before the rotation verifies too: it refetches on a miss.
    const stale = new AgentVerifier({ callbackUrl: second.url, jwksUrl: jwksUrl(), keys: before.keys as Jwk[] });
    expect(await stale.verify(fresh!.headers, fresh!.body, fresh!.at / 1000)).toMatchObject({
      ok: true,
      kid: rotated.kid,
    });
  });
});

describe("submit under a burst", () => {
  it("30 push submits at once all succeed: the binding check reads inside the submit transaction", async () => {
    // Regression: the check used a second pooled connection per open transaction, so ≥ 10 at once
    // (the pool size) deadlocked until Prisma's maxWait and answered 500 (P2028).
    const t0 = Date.now();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        api().post(
          "/v1/messages",
          envelope("ask", A, {
            request: { mode: "confirm", callback: { mode: "push", url: `${rx.origin}/burst/${i}`, auth: HMAC } },
          }),
        ),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(30).fill(202));
    expect(Date.now() - t0).toBeLessThan(15_000);
  });
});

describe("versions", () => {
  it("a push callback on a v0.2 message is refused with version_not_supported and creates nothing", async () => {
    const body = envelope("ask", A, {
      ma2h_version: "0.2",
      request: { mode: "confirm", callback: { mode: "push", url: `${rx.origin}/v/old`, auth: HMAC } },
    });
    const res = await api().post("/v1/messages", body);
    expect([res.status, res.body.error.code]).toEqual([400, "version_not_supported"]);
    const v03 = await api().post("/v1/messages", {
      ...body,
      ma2h_version: "0.3",
      idempotency_key: `${body.idempotency_key}-v03`,
    });
    expect(v03.status).toBe(202);
    await resolve(v03.body.id, { resolution: "answered", value: "approve" });
    const [got] = await rx.waitFor("/v/old", 1);
    // §10: signed at the message's own version.
    const verdict = await new AgentVerifier({ callbackUrl: `${rx.origin}/v/old`, hmacSecrets: [HMAC_SECRET] }).verify(
      got!.headers,
      got!.body,
      got!.at / 1000,
    );
    expect(verdict).toMatchObject({ ok: true, body: { ma2h_version: "0.3" } });
    expect((await waitForDelivery(v03.body.id, (d) => d.status !== "pending")).status).toBe("delivered");
  });
});

/**
 * The limits and aliases the Hub advertises, end to end against a real web process: the §8.6
 * per-agent submit rate and inbox depth read from the §8.0 capability document and enforced as
 * `429 rate_limited` with `Retry-After` (nothing created), the `/.well-known/ma2h-capability` alias,
 * and the §14.1 ack `ma2h_version` rule on the response leg.
 */
// covers: lib/rate-limit.ts, lib/messages/limits.ts, lib/capability.ts, app/well-known/ma2h/route.ts
import { describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { capabilitySchema } from "@ma2h/protocol/capability";
import { HUB_VERSION } from "@ma2h/protocol/versions";
import { client } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";
import { validateOfficial } from "./support/spec";
import { waitFor } from "./support/wait";

const RATE = "rate/bot";
const DEPTH = "depth/bot";
const ACKER = "acker/bot";
const RACE = "race/bot";
const REGISTRAR = "registrar/bot";
const PER_MINUTE = 6;
const INBOX_DEPTH = 2;

const hub = useHubFixture({
  accounts: { acme: { agents: [RATE, DEPTH, ACKER, RACE, REGISTRAR], humans: [{ handle: "alice", role: "owner" }] } },
  env: {
    MA2H_RATE_LIMIT_PER_MINUTE: String(PER_MINUTE),
    MA2H_INBOX_DEPTH: String(INBOX_DEPTH),
    MA2H_PUSH_MAX_ATTEMPTS: "7",
    MA2H_PUSH_MAX_DURATION_SECONDS: "3600",
    MA2H_MAX_WAIT_SECONDS: "45",
  },
});
const acme = hub.account("acme");

const agent = (id: string) => client(hub.url, acme.keys[id]);
const submit = (id: string, type: "notify" | "ask" | "task", over: Record<string, unknown> = {}) =>
  agent(id).post("/v1/messages", envelope(type, id, over));
const resolve = (id: string) =>
  client(hub.url, acme.tokens.alice).post(`/v1/messages/${id}/resolve`, { resolution: "answered", value: "ship" });
const messagesOf = (agentId: string) => db().message.count({ where: { agent: { agentId } } });
const capability = async () => (await client(hub.url).get("/.well-known/ma2h")).body;

/** §8.5/§8.6: exactly the error envelope, code `rate_limited`, and whole seconds in Retry-After. */
function expectRateLimited(res: { status: number; headers: Headers; body: any }): void {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  expect(res.status).toBe(429);
  expect(Object.keys(res.body)).toEqual(["error"]);
  expect(Object.keys(res.body.error).sort()).toEqual(["code", "message"]);
  expect(res.body.error.code).toBe("rate_limited");
  expect(typeof res.body.error.message).toBe("string");
  const retryAfter = res.headers.get("retry-after");
  expect(retryAfter).toMatch(/^[1-9]\d*$/);
  expect(Number(retryAfter)).toBeLessThanOrEqual(60);
}

/**
 * The budget is a fixed one-minute window (lib/rate-limit.ts) on this box's clock: late in one, waits
 * until the next has begun (a quarter second in, as before), so a burst cannot straddle a boundary
 * and be granted a fresh budget halfway.
 */
async function earlyInWindow(): Promise<void> {
  if (Date.now() % 60_000 <= 50_000) return;
  await waitFor(
    () => {
      const into = Date.now() % 60_000;
      return into >= 250 && into <= 50_000;
    },
    { timeout: 20_000, every: 25, what: "the next one-minute rate window" },
  );
}

describe("§8.6 submit rate (rate_limit.requests_per_minute)", () => {
  it("accepts the advertised number per minute, then 429 rate_limited with Retry-After, creating nothing", async () => {
    const perMinute = (await capability()).rate_limit.requests_per_minute;
    expect(perMinute).toBe(PER_MINUTE);
    // The budget is a fixed one-minute window (lib/rate-limit.ts): start early in one, so the
    // burst cannot straddle a boundary and be granted a fresh budget halfway.
    await earlyInWindow();

    for (let i = 0; i < perMinute; i++) expect((await submit(RATE, "notify")).status).toBe(202);
    const before = await messagesOf(RATE);
    expect(before).toBe(perMinute);
    const over = await submit(RATE, "ask");
    expectRateLimited(over);
    expect(await messagesOf(RATE)).toBe(before);
    // The budget is per agent.id: another agent of the account is unaffected.
    expect((await submit(ACKER, "notify")).status).toBe(202);
  });
});

describe("§8.6 session registration counts against the rate", () => {
  it("registrations and submits share the agent's budget: past it, both are 429 and no session is minted", async () => {
    await earlyInWindow();
    for (let i = 0; i < PER_MINUTE / 2; i++) expect((await submit(REGISTRAR, "notify")).status).toBe(202);
    for (let i = 0; i < PER_MINUTE / 2; i++) expect((await agent(REGISTRAR).post("/v1/sessions", {})).status).toBe(201);
    const sessions = () => db().agentSession.count({ where: { agent: { agentId: REGISTRAR } } });
    const before = await sessions();
    const refused = await agent(REGISTRAR).post("/v1/sessions", {});
    expectRateLimited(refused);
    // The refusal names what the budget counts, which reads right for a registration too.
    expect(refused.body.error.message).toBe(
      `over ${PER_MINUTE} submits and session registrations per minute for this agent`,
    );
    expect(await sessions()).toBe(before);
    const submitRefused = await submit(REGISTRAR, "notify");
    expectRateLimited(submitRefused);
    expect(submitRefused.body.error.message).toBe(refused.body.error.message);
  });
});

describe("§8.6 inbox depth (rate_limit.inbox_depth)", () => {
  it("refuses the ask past the advertised open asks/tasks with 429; notify still accepted; resolving frees a slot", async () => {
    const depth = (await capability()).rate_limit.inbox_depth;
    expect(depth).toBe(INBOX_DEPTH);
    const open: string[] = [];
    for (let i = 0; i < depth; i++) {
      const res = await submit(DEPTH, i % 2 === 0 ? "ask" : "task");
      expect(res.status).toBe(202);
      open.push(res.body.id);
    }
    const before = await messagesOf(DEPTH);
    const refused = await submit(DEPTH, "ask");
    expectRateLimited(refused);
    expect(await messagesOf(DEPTH)).toBe(before);

    // A notify is not an open ask/task: the depth does not bound it.
    const notify = await submit(DEPTH, "notify");
    expect([notify.status, notify.body.status]).toEqual([202, "delivered"]);

    expect((await resolve(open[0]!)).status).toBe(200);
    const freed = await submit(DEPTH, "ask");
    expect([freed.status, freed.body.status]).toEqual([202, "open"]);
  });
});

describe("§8.6 inbox depth under concurrency (one statement, a counted row lock)", () => {
  it("accepts exactly inbox_depth of simultaneous asks, keyed or not; the kept count follows every transition", async () => {
    const counted = async () =>
      (await db().agentOpenCount.findFirst({ where: { agent: { agentId: RACE } }, select: { open: true } }))?.open;
    const results = await Promise.all(
      Array.from({ length: PER_MINUTE }, (_, i) => submit(RACE, "ask", i % 2 ? { idempotency_key: `race-${i}` } : {})),
    );
    const accepted = results.filter((r) => r.status === 202);
    expect(accepted).toHaveLength(INBOX_DEPTH);
    for (const r of results.filter((x) => x.status !== 202)) expectRateLimited(r);
    expect(await db().message.count({ where: { agent: { agentId: RACE }, status: "open" } })).toBe(INBOX_DEPTH);
    // A refused keyed submit leaves no idempotency record behind.
    expect(await db().idempotencyRecord.count({ where: { idempotencyKey: { startsWith: "race-" } } })).toBe(
      accepted.filter((r) => results.indexOf(r) % 2 === 1).length,
    );
    expect(await counted()).toBe(INBOX_DEPTH);
    // Resolve (§7 CAS) and cancel each move the count kept by the triggers on `messages`.
    expect((await resolve(accepted[0]!.body.id)).status).toBe(200);
    expect(await counted()).toBe(INBOX_DEPTH - 1);
    expect((await agent(RACE).post(`/v1/messages/${accepted[1]!.body.id}/cancel`)).status).toBe(200);
    expect(await counted()).toBe(INBOX_DEPTH - 2);
  });
});

describe("§8.0 discovery alias", () => {
  it("/.well-known/ma2h-capability serves the same document, valid v0.6", async () => {
    const main = await client(hub.url).get("/.well-known/ma2h");
    const alias = await client(hub.url).get("/.well-known/ma2h-capability");
    expect([main.status, alias.status]).toEqual([200, 200]);
    expect(alias.headers.get("content-type")).toMatch(/^application\/json/);
    expect(alias.body).toEqual(main.body);
    expect(alias.body.ma2h_version).toBe("0.6");
    expect(alias.body.ma2h_version).toBe(HUB_VERSION);
    expect(validateOfficial("capability.schema.json", alias.body)).toEqual([]);
  });

  it("advertises the legs it offers and the extension limits as configured, the inter-agent leg with ack and sessions", async () => {
    const doc = await capability();
    // §8.0: offered legs are advertised.
    expect(doc.inbound).toMatchObject({ enabled: true, webhook_supported: false, signature_algs: ["ed25519"] });
    expect(doc.ack).toEqual({ enabled: true });
    expect(doc.presence).toMatchObject({ enabled: true });
    expect(doc.sessions).toMatchObject({ enabled: true, operator_hard_stop: true });
    // §8.0: the ceiling (each account still opts in), all three entry kinds, allowlists supported;
    // §8.6: the separate budget of addressed submits (default 120).
    expect(doc.inter_agent).toEqual({
      enabled: true,
      entry_kinds: ["message", "response", "receipt"],
      sender_allowlists: true,
    });
    expect(doc.rate_limit.inter_agent_requests_per_minute).toBe(120);
    // Extension fields (docs/decisions/protocol.md "Capability extensions"), from this Hub's configuration.
    expect(doc).toMatchObject({ callback_max_attempts: 7, callback_max_duration_seconds: 3600, max_wait_seconds: 45 });
    expect(doc.idempotency_ttl_seconds).toBeGreaterThanOrEqual(86_400);
    // The ed25519 keys' address, absolute and on the Hub's own origin, serving the published JWKS.
    expect(doc.signing_keys_url).toBe(`${hub.url}/.well-known/ma2h-keys`);
    const jwks = await client(hub.url).get(new URL(doc.signing_keys_url).pathname);
    expect(jwks.status).toBe(200);
    expect(jwks.body.keys.length).toBeGreaterThanOrEqual(1);
    expect(capabilitySchema.safeParse(doc).success).toBe(true);
    expect(capabilitySchema.safeParse({ ...doc, signing_keys_url: "not a url" }).success).toBe(false);
  });
});

describe("§14.1 the response-leg ack's ma2h_version", () => {
  // The rule (lib/messages/delivery-track.ts ackVersion): the message's own version when its minor
  // is ≥ 4 and not above the Hub's, else the Hub's; ack.schema.json requires a minor ≥ 4.
  for (const [version, expected] of [
    ["0.9", HUB_VERSION], // a newer minor than the Hub speaks: the Hub never claims it
    ["0.6", "0.6"],
    ["0.5", "0.5"],
    ["0.4", "0.4"],
    ["0.3", HUB_VERSION],
  ] as const) {
    it(`a ${version} message's ack is ${expected}, valid against ack.schema.json and inside the GET's delivery`, async () => {
      const sent = await submit(ACKER, "ask", { ma2h_version: version });
      expect(sent.status).toBe(202);
      expect((await resolve(sent.body.id)).status).toBe(200);
      const delivered = await agent(ACKER).get(`/v1/messages/${sent.body.id}`); // delivered-to-agent (§14.2)
      expect(delivered.body.delivery.state).toBe("delivered-to-agent");

      const ack = await agent(ACKER).post(`/v1/messages/${sent.body.id}/ack`, { note: "resuming" });
      expect(ack.status).toBe(200);
      expect(ack.body).toMatchObject({
        ma2h_version: expected,
        type: "ack",
        in_reply_to: sent.body.id,
        by: `agent:${ACKER}`,
        note: "resuming",
      });
      expect(validateOfficial("ack.schema.json", ack.body)).toEqual([]);

      const got = (await agent(ACKER).get(`/v1/messages/${sent.body.id}`)).body;
      expect(got.ma2h_version).toBe(version); // the message keeps its own version
      expect(got.delivery.state).toBe("acknowledged");
      expect(got.delivery.ack).toEqual(ack.body);
      expect(validateOfficial("get-message.schema.json", got)).toEqual([]);
    });
  }

  it("no pushed-ack channel is advertised (§14.4: a pushed ack would need ack.signature_algs)", async () => {
    expect((await capability()).ack).toEqual({ enabled: true });
  });
});

/**
 * The v0.6 `ask` contract (§5.2, §6, §8.8, §10) on the running Hub — the downstream proofs a JSON
 * Schema cannot carry: dp-026 (option values unique), dp-027 (input schemas answerable, refused at
 * submit with nothing created), dp-028 (the `allow_edit` free-form answer and the Hub-computed,
 * signed `edited`) and dp-029 (the corrections apply at every minor; `allow_edit` only at ≥ 0.6,
 * gated where the Hub acts on it, never stripped from the stored envelope).
 */
// covers: packages/protocol/src/ask-contract.ts, packages/protocol/src/input-schema.ts, lib/messages/resolve.ts, lib/messages/submit.ts
import { describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { addBinding } from "../lib/principals/bindings";
import { AgentVerifier } from "./support/agent-verify";
import { client } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";
import { submitPush } from "./support/push-kit";
import type { Receiver } from "./support/receiver";
import { validateOfficial } from "./support/spec";

let rx: Receiver;
const A = "deploybot/dev-team";
const B = "overseer/fleet";
const SECRET = "ask-contract-secret";
const MINORS = ["0.3", "0.4", "0.5", "0.6"];
const OPTIONS = [
  { value: "ship", label: "Ship to prod now", description: "Deploy immediately." },
  { value: "hold", label: "Hold for review", description: "Wait for a human PR review." },
];
const OFF_MENU = "hold, until the migration lands";
const ANSWER_SCHEMA = { type: "object", properties: { reason: { type: "string" } }, required: ["reason"] };

const hub = useHubFixture({
  accounts: { acme: { agents: [A, B], humans: [{ handle: "alice", role: "owner" }] } },
  receivers: 1,
  setup: async (h) => {
    rx = h.receiver;
    await addBinding({
      agentRef: { agentId: A, accountSlug: "acme" },
      origin: rx.origin,
      secretRef: "cb",
      secret: SECRET,
    });
  },
  server: "pair",
  env: (h) => ({ MA2H_DEV_CALLBACK_ALLOWLIST: h.receiver.origin, MA2H_PUSH_BASE_DELAY_MS: "500" }),
});
const acme = hub.account("acme");

const agent = (id = A) => client(hub.web.url, acme.keys[id]);
const alice = () => client(hub.web.url, acme.tokens.alice);
const ask = (request: Record<string, unknown>, version = "0.6", over: Record<string, unknown> = {}) =>
  envelope("ask", A, { ma2h_version: version, request, ...over });

async function submitted(body: Record<string, unknown>): Promise<string> {
  const res = await agent().post("/v1/messages", body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.id as string;
}

/** A 422 naming `field`, and nothing created under the envelope's idempotency key (§8.1). */
async function refused(body: Record<string, unknown>, field: string): Promise<void> {
  const before = await db().message.count();
  const res = await agent().post("/v1/messages", body);
  expect([res.status, res.body?.error?.code], JSON.stringify(res.body)).toEqual([422, "invalid_field"]);
  expect(res.body.error.message).toContain(field);
  expect(await db().message.count()).toBe(before);
  expect(await db().message.count({ where: { idempotencyKey: body.idempotency_key as string } })).toBe(0);
  expect(await db().idempotencyRecord.count({ where: { idempotencyKey: body.idempotency_key as string } })).toBe(0);
  // The key was never claimed: the corrected ask under the same key is a first submit, not a 409.
  const fixed = { ...body, request: { mode: "select", options: OPTIONS }, title: "corrected" };
  const retry = await agent().post("/v1/messages", fixed);
  expect(retry.status, JSON.stringify(retry.body)).toBe(202);
  expect(retry.body.status).toBe("open");
}

const resolve = (id: string, body: Record<string, unknown>, as = alice()) =>
  as.post(`/v1/messages/${id}/resolve`, body);
const pull = async (id: string) => (await agent().get(`/v1/messages/${id}`)).body;

async function expectStillOpen(id: string): Promise<void> {
  expect((await pull(id)).status).toBe("open");
  expect(await db().resolution.count({ where: { messageId: id } })).toBe(0);
}

describe("dp-026: option values are unique (§5.2)", () => {
  it.each(MINORS)("a select whose options share a value is refused 422 at %s, nothing created", async (version) => {
    const options = [
      { value: "approve", label: "Approve and deploy" },
      { value: "approve", label: "Approve but hold" },
    ];
    await refused(ask({ mode: "select", options }, version), "request.options[1].value");
  });

  it("a confirm with supplied options sharing a value, and wholly identical options, are refused 422 too", async () => {
    await refused(
      ask({
        mode: "confirm",
        options: [
          { value: "go", label: "Go" },
          { value: "go", label: "Go now" },
        ],
      }),
      "request.options",
    );
    // The schema's uniqueItems would answer 400; the Hub's own rule runs first and names the field.
    await refused(
      ask({
        mode: "select",
        options: [
          { value: "hold", label: "Hold" },
          { value: "hold", label: "Hold" },
        ],
      }),
      "request.options",
    );
  });

  it("duplicate labels and descriptions with distinct values are accepted unchanged", async () => {
    const options = [
      { value: "a", label: "Same words", description: "Same description" },
      { value: "b", label: "Same words", description: "Same description" },
    ];
    const id = await submitted(ask({ mode: "select", options }));
    expect((await pull(id)).request.options).toEqual(options);
  });
});

describe("dp-027: an input schema describes the answer object (§5.2)", () => {
  const bad: Array<[string, Record<string, unknown>, string]> = [
    ["a scalar schema", { type: "string", minLength: 1 }, "request.schema.type"],
    ["a bare object", { type: "object" }, "request.schema.properties"],
    ["empty properties", { type: "object", properties: {} }, "request.schema.properties"],
    [
      "a type array without object",
      { type: ["string", "number"], properties: { reason: { type: "string" } } },
      "request.schema.type",
    ],
    [
      "a malformed type array",
      { type: ["object", 42], properties: { reason: { type: "string" } } },
      "request.schema.type",
    ],
  ];
  for (const version of MINORS) {
    it.each(bad)(
      `${version}: %s is refused 422 naming request.schema, nothing created`,
      async (_name, schema, field) => {
        await refused(ask({ mode: "input", schema }, version), field);
      },
    );
  }

  it("the answer-object shapes are accepted — type object, absent, or [object, null] — and answerable", async () => {
    for (const schema of [
      ANSWER_SCHEMA,
      { properties: ANSWER_SCHEMA.properties },
      { ...ANSWER_SCHEMA, type: ["object", "null"] },
    ]) {
      const id = await submitted(ask({ mode: "input", schema }));
      const res = await resolve(id, { resolution: "answered", value: { reason: "looks good" } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect((await pull(id)).response.response).toMatchObject({ value: { reason: "looks good" }, edited: false });
    }
  });

  it("a stray schema on an option ask changes nothing", async () => {
    const id = await submitted(ask({ mode: "select", options: OPTIONS, schema: { type: "string" } }));
    expect((await resolve(id, { resolution: "answered", value: "ship" })).status).toBe(200);
  });
});

describe("dp-028: allow_edit — the free-form answer, and edited by set membership (§5.2, §6, §8.8)", () => {
  it("(1) without allow_edit an off-menu value is 422 and the ask stays open", async () => {
    const d = await submitted(ask({ mode: "select", options: OPTIONS }));
    const res = await resolve(d, { resolution: "answered", value: OFF_MENU });
    expect([res.status, res.body.error.code]).toEqual([422, "invalid_field"]);
    await expectStillOpen(d);
    const f = await submitted(ask({ mode: "select", options: OPTIONS, permissions: { allow_edit: false } }));
    expect((await resolve(f, { resolution: "answered", value: OFF_MENU })).status).toBe(422);
    await expectStillOpen(f);
  });

  it("(2)(5) with allow_edit the off-menu value arrives verbatim, edited: true, pushed and pulled; the signature binds edited", async () => {
    const e = await submitPush(
      hub.web.url,
      acme.keys[A] as string,
      A,
      `${rx.origin}/dp028/e`,
      { scheme: "hmac", secret_ref: "cb" },
      {
        over: { ma2h_version: "0.6", request: { mode: "select", options: OPTIONS, permissions: { allow_edit: true } } },
      },
    );
    const res = await resolve(e.id, { resolution: "answered", value: OFF_MENU, comment: "see the migration PR" });
    expect([res.status, res.body.status]).toEqual([200, "answered"]);

    const [got] = await rx.waitFor("/dp028/e", 1, 20_000);
    if (!got) throw new Error("no push received");
    const verifier = () => new AgentVerifier({ callbackUrl: e.url, hmacSecrets: [SECRET] });
    const verdict = await verifier().verify(got.headers, got.body, got.at / 1000);
    if (!verdict.ok) throw new Error(`push did not verify: ${verdict.reason}`);
    expect(verdict.body.response).toMatchObject({ value: OFF_MENU, edited: true, actor: "human:alice" });
    expect(verdict.body.ma2h_version).toBe("0.6"); // §10: signed at the version carried
    expect(validateOfficial("response.schema.json", verdict.body)).toEqual([]);
    const pulled = await pull(e.id);
    expect(pulled.response).toEqual(verdict.body);
    expect(validateOfficial("get-message.schema.json", pulled)).toEqual([]);

    // Flip `edited` in transit: the §9.2 signature no longer verifies.
    const flipped = JSON.parse(got.body);
    flipped.response.edited = false;
    const tampered = await verifier().verify(got.headers, JSON.stringify(flipped), got.at / 1000);
    expect(tampered).toMatchObject({ ok: false, reason: "bad_signature" });
  });

  it("(3)(4) a listed value is never edited; a resolver-supplied edited is ignored either way", async () => {
    const listed = await submitted(ask({ mode: "select", options: OPTIONS, permissions: { allow_edit: true } }));
    expect((await resolve(listed, { resolution: "answered", value: "hold", edited: true })).status).toBe(200);
    expect((await pull(listed)).response.response).toMatchObject({ value: "hold", edited: false });

    const off = await submitted(ask({ mode: "select", options: OPTIONS, permissions: { allow_edit: true } }));
    expect((await resolve(off, { resolution: "answered", value: "roll back", edited: false })).status).toBe(200);
    expect((await pull(off)).response.response).toMatchObject({ value: "roll back", edited: true });
  });

  it("an agent resolver gets the same rule, and a confirm's synthesized options are never edited", async () => {
    const byAgent = await submitted(
      ask({ mode: "select", options: OPTIONS, permissions: { allow_edit: true }, allowed_resolvers: [`agent:${B}`] }),
    );
    expect((await resolve(byAgent, { resolution: "answered", value: OFF_MENU }, agent(B))).status).toBe(200);
    expect((await pull(byAgent)).response.response).toMatchObject({
      value: OFF_MENU,
      edited: true,
      actor: `agent:${B}`,
    });

    const approve = await submitted(ask({ mode: "confirm", permissions: { allow_edit: true } }));
    expect((await resolve(approve, { resolution: "answered", value: "approve" })).status).toBe(200);
    expect((await pull(approve)).response.response).toMatchObject({ value: "approve", edited: false });
    const other = await submitted(ask({ mode: "confirm", permissions: { allow_edit: true } }));
    expect((await resolve(other, { resolution: "answered", value: "approve after lunch" })).status).toBe(200);
    expect((await pull(other)).response.response).toMatchObject({ value: "approve after lunch", edited: true });
  });

  it("a blank free-form answer is refused and the ask stays open (docs/decisions/protocol.md)", async () => {
    const id = await submitted(ask({ mode: "select", options: OPTIONS, permissions: { allow_edit: true } }));
    expect((await resolve(id, { resolution: "answered", value: "  " })).status).toBe(422);
    await expectStillOpen(id);
  });

  it("(6) default_on_expire must still be a listed value, even with allow_edit", async () => {
    const body = ask({
      mode: "select",
      options: OPTIONS,
      permissions: { allow_edit: true },
      default_on_expire: "later",
    });
    const res = await agent().post("/v1/messages", body);
    expect([res.status, res.body.error.code]).toEqual([422, "invalid_field"]);
    expect(res.body.error.message).toContain("request.default_on_expire");
    expect(await db().message.count({ where: { idempotencyKey: body.idempotency_key as string } })).toBe(0);
  });

  it("(7) on an input ask allow_edit is ignored and edited is false", async () => {
    const id = await submitted(ask({ mode: "input", schema: ANSWER_SCHEMA, permissions: { allow_edit: true } }));
    expect(
      (await resolve(id, { resolution: "answered", value: { reason: "typed by a person" }, edited: true })).status,
    ).toBe(200);
    expect((await pull(id)).response.response).toMatchObject({ value: { reason: "typed by a person" }, edited: false });
  });
});

describe("dp-029: the corrections apply at every minor, allow_edit only at ≥ 0.6 (§5.2, §10)", () => {
  it.each(["0.3", "0.4", "0.5"])(
    "%s: allow_edit is ignored where the Hub acts on it, never stripped; a byte-identical retry replays",
    async (version) => {
      const body = ask({ mode: "select", options: OPTIONS, permissions: { allow_edit: true } }, version);
      const first = await agent().post("/v1/messages", body);
      expect(first.status).toBe(202);
      const id = first.body.id as string;

      const res = await resolve(id, { resolution: "answered", value: OFF_MENU });
      expect([res.status, res.body.error.code]).toEqual([422, "invalid_field"]);
      expect(res.body.error.message).toContain("0.6");
      await expectStillOpen(id);

      // The stored envelope keeps the field verbatim: the GET shows it, and the §8.1 retry recovers the ack.
      const got = await pull(id);
      expect(got.request.permissions).toEqual({ allow_edit: true });
      expect(
        JSON.parse((await db().message.findUniqueOrThrow({ where: { id } })).envelope).request.permissions,
      ).toEqual({ allow_edit: true });
      const retry = await agent().post("/v1/messages", body);
      expect([retry.status, retry.body.id, retry.body.status]).toEqual([202, id, "open"]);

      // A listed value still answers it, not edited.
      expect((await resolve(id, { resolution: "answered", value: "ship" })).status).toBe(200);
      expect((await pull(id)).response.response).toMatchObject({ value: "ship", edited: false });
    },
  );

  it("an ask stored as 0.6 with allow_edit is honoured; the same ask declared 0.5 is not", async () => {
    const six = await submitted(ask({ mode: "select", options: OPTIONS, permissions: { allow_edit: true } }, "0.6"));
    const five = await submitted(ask({ mode: "select", options: OPTIONS, permissions: { allow_edit: true } }, "0.5"));
    expect((await resolve(six, { resolution: "answered", value: OFF_MENU })).status).toBe(200);
    expect((await resolve(five, { resolution: "answered", value: OFF_MENU })).status).toBe(422);
  });

  it("allow_accept is accepted and ignored at every minor", async () => {
    for (const version of MINORS) {
      const id = await submitted(
        ask({ mode: "select", options: OPTIONS, permissions: { allow_accept: false, allow_respond: true } }, version),
      );
      expect((await resolve(id, { resolution: "answered", value: "ship" })).status).toBe(200);
    }
  });
});

/**
 * §8.1 submit over HTTP against the real server: each verb, the check order, idempotency, limits
 * and every §8.5 code submit can produce. Nothing a rejected submit sends may be created.
 */
// covers: lib/messages/submit.ts, lib/http/routes/submit.ts, packages/protocol/src/rules.ts, lib/messages/limits.ts, packages/protocol/src/versions.ts
import { describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { client } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { approveOrigin, envelope } from "./support/provision";
import { loadVector, validateOfficial } from "./support/spec";
import { waitFor } from "./support/wait";

const A = "deploybot/dev-team";
const B = "overseer/fleet";
const hub = useHubFixture({
  accounts: {
    acme: { agents: [A, B, "bad#id"], humans: [{ handle: "alice", role: "owner" }] },
    other: { agents: [A] },
  },
  setup: () => approveOrigin(A, "acme", "https://agent.example:8443"),
  env: { MA2H_MAX_PART_BYTES: "2048", MA2H_MAX_CONTEXT_PARTS: "3" },
});
const acme = hub.account("acme");
const other = hub.account("other");

const agent = (id = A, p = () => acme) => client(hub.url, p().keys[id]);
const count = () => db().message.count();

describe("POST /v1/messages", () => {
  it("accepts each verb with a closed ack of exactly {id,status,poll_url,review_url}", async () => {
    for (const [type, status] of [
      ["notify", "delivered"],
      ["ask", "open"],
      ["task", "open"],
    ] as const) {
      const res = await agent().post("/v1/messages", envelope(type, A));
      expect(res.status).toBe(202);
      expect(Object.keys(res.body).sort()).toEqual(["id", "poll_url", "review_url", "status"]);
      expect(res.body.status).toBe(status);
      expect(res.body.id).toMatch(/^msg_[0-9a-z]{26}$/);
      expect(res.body.poll_url).toBe(`${hub.url}/v1/messages/${res.body.id}`);
      expect(res.body.review_url).toBe(`${hub.url}/inbox/${res.body.id}`);
      expect(validateOfficial("submit-ack.schema.json", res.body)).toEqual([]);
    }
  });

  it("ignores a client-supplied id and unknown fields (§4, §10)", async () => {
    const res = await agent().post("/v1/messages", envelope("notify", A, { id: "evil", x_extra: { a: 1 } }));
    expect(res.status).toBe(202);
    expect(res.body.id).not.toBe("evil");
    const got = await agent().get(`/v1/messages/${res.body.id}`);
    expect(got.body.id).toBe(res.body.id);
    expect(got.body.x_extra).toEqual({ a: 1 });
  });

  it("requires application/json, a non-empty object body (400 validation_error)", async () => {
    const before = await count();
    const key = acme.keys[A] as string;
    const raw = async (body: string, type?: string) => {
      const headers: Record<string, string> = { authorization: `Bearer ${key}` };
      if (type) headers["content-type"] = type;
      const res = await fetch(`${hub.url}/v1/messages`, { method: "POST", headers, body });
      return { status: res.status, body: await res.json() };
    };
    const good = JSON.stringify(envelope("notify", A));
    for (const [body, type] of [
      [good, "text/plain"],
      [good, undefined],
      ["", "application/json"],
      ["[1]", "application/json"],
      ['"x"', "application/json"],
      ["{not json", "application/json"],
    ] as const) {
      const res = await raw(body, type);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("validation_error");
      expect(typeof res.body.error.message).toBe("string");
    }
    expect((await raw(good, "application/json; charset=utf-8")).status).toBe(202);
    expect(await count()).toBe(before + 1);
  });

  it("answers 401 without a credential, with a bad one, and with an operator token", async () => {
    for (const token of [undefined, "ma2h_key_nope", "garbage", acme.tokens.alice]) {
      const res = await client(hub.url, token).post("/v1/messages", envelope("notify", A));
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("unauthenticated");
    }
    const viaHeader = await fetch(`${hub.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": acme.keys[A] as string, "content-type": "application/json" },
      body: JSON.stringify(envelope("notify", A)),
    });
    expect(viaHeader.status).toBe(202);
  });

  it("rejects an agent.id other than the credential's (403 agent_id_mismatch)", async () => {
    const res = await agent().post("/v1/messages", envelope("notify", B));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("agent_id_mismatch");
  });

  it("checks the major version before the schema (§10)", async () => {
    for (const v of ["1.0", "2.5"]) {
      const res = await agent().post("/v1/messages", envelope("notify", A, { ma2h_version: v, title: "" }));
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("version_not_supported");
    }
    for (const v of ["0.03", "0.5.1", "0."]) {
      const res = await agent().post("/v1/messages", envelope("notify", A, { ma2h_version: v }));
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("validation_error");
    }
    for (const v of ["0.2", "0.3", "0.4", "0.9"]) {
      expect((await agent().post("/v1/messages", envelope("ask", A, { ma2h_version: v }))).status).toBe(202);
    }
  });

  it("enforces push parity: a push callback below 0.3 is version_not_supported (§10)", async () => {
    const push = { mode: "push", url: "https://agent.example:8443/hook", auth: { scheme: "hmac", secret_ref: "cb" } };
    const req = (v: string) => envelope("ask", A, { ma2h_version: v, request: { mode: "confirm", callback: push } });
    const old = await agent().post("/v1/messages", req("0.2"));
    expect(old.status).toBe(400);
    expect(old.body.error.code).toBe("version_not_supported");
    expect((await agent().post("/v1/messages", req("0.3"))).status).toBe(202);
  });

  it("rejects the submit-path schema vectors with 400 and the #-sender vector with 422", async () => {
    const before = await count();
    for (const id of ["sv-002", "sv-003", "sv-005", "sv-006", "sv-019", "sv-020", "sv-021", "sv-038"]) {
      const vector = loadVector(id);
      const input = { ...(vector.input as Record<string, unknown>) };
      input.agent = { ...(input.agent as object), id: A };
      const res = await agent().post("/v1/messages", input);
      expect([id, res.status, res.body.error.code]).toEqual([id, 400, "validation_error"]);
    }
    const hashSender = loadVector("sv-040").input as Record<string, unknown>;
    const res = await agent("bad#id").post("/v1/messages", {
      ...hashSender,
      agent: { ...(hashSender.agent as object), id: "bad#id" },
    });
    expect([res.status, res.body.error.code]).toEqual([422, "invalid_field"]);
    expect(await count()).toBe(before);
  });

  it("refuses the inter-agent leg with 422 and creates nothing", async () => {
    const before = await count();
    const to = await agent().post("/v1/messages", envelope("notify", A, { to: `agent:${B}` }));
    expect([to.status, to.body.error.code]).toEqual([422, "invalid_field"]);
    expect(to.body.error.message).toMatch(/inter-agent leg/);
    // §4.1: a session that is not one of the caller's own (never registered here) is 422.
    const session = await agent().post(
      "/v1/messages",
      envelope("ask", A, { agent: { id: A, run_id: "r", runtime: "cli", session: "sess_abc" } }),
    );
    expect([session.status, session.body.error.code]).toEqual([422, "invalid_field"]);
    const human = await agent().post("/v1/messages", envelope("notify", A, { to: "human:alice" }));
    expect([human.status, human.body.error.code]).toEqual([400, "validation_error"]);
    expect(await count()).toBe(before);
  });

  it("applies the semantic checks with 422 invalid_field", async () => {
    const before = await count();
    const cases: Record<string, unknown>[] = [
      envelope("ask", A, { expires_at: "2020-01-01T00:00:00Z" }),
      envelope("ask", A, {
        request: { mode: "select", options: [{ value: "a", label: "A" }], default_on_expire: "zzz" },
      }),
      envelope("ask", A, { request: { mode: "confirm", default_on_expire: "maybe" } }),
      envelope("ask", A, {
        request: {
          mode: "input",
          schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
          default_on_expire: { n: "x" },
        },
      }),
      envelope("ask", A, {
        request: {
          mode: "input",
          schema: { type: "object", properties: { deep: { type: "object", properties: {} } } },
        },
      }),
    ];
    for (const body of cases) {
      const res = await agent().post("/v1/messages", body);
      expect([res.status, res.body.error.code]).toEqual([422, "invalid_field"]);
    }
    expect(await count()).toBe(before);
  });

  it("enforces part size and count limits with 422, as advertised", async () => {
    const cap = (await client(hub.url).get("/.well-known/ma2h")).body;
    expect([cap.max_part_bytes, cap.max_context_parts]).toEqual([2048, 3]);
    const part = (n: number) => ({ kind: "text", text: "x".repeat(n) });
    const big = await agent().post("/v1/messages", envelope("notify", A, { context: [part(4000)] }));
    expect([big.status, big.body.error.code]).toEqual([422, "invalid_field"]);
    const many = await agent().post(
      "/v1/messages",
      envelope("notify", A, { context: [part(1), part(1), part(1), part(1)] }),
    );
    expect([many.status, many.body.error.code]).toEqual([422, "invalid_field"]);
    expect(
      (await agent().post("/v1/messages", envelope("notify", A, { context: [part(1), part(1), part(1)] }))).status,
    ).toBe(202);
  });

  it("accepts a push callback only to an approved origin and ref (§9.4)", async () => {
    const cb = (url: string, ref = "cb") =>
      envelope("ask", A, {
        request: { mode: "confirm", callback: { mode: "push", url, auth: { scheme: "hmac", secret_ref: ref } } },
      });
    expect((await agent().post("/v1/messages", cb("https://agent.example:8443/resume?x=1"))).status).toBe(202);
    for (const url of [
      "https://agent.example/resume",
      "http://agent.example:8443/r",
      "https://agent.example:8443.evil.com/r",
      "https://evil.example:8443/r",
    ]) {
      const res = await agent().post("/v1/messages", cb(url));
      expect([url, res.status, res.body.error.code]).toEqual([url, 422, "invalid_field"]);
    }
    const wrongRef = await agent().post("/v1/messages", cb("https://agent.example:8443/r", "other"));
    expect(wrongRef.status).toBe(422);
    // Another agent's binding never serves this one.
    const res = await agent(B).post("/v1/messages", {
      ...cb("https://agent.example:8443/r"),
      agent: { id: B, run_id: "r", runtime: "cli" },
    });
    expect(res.status).toBe(422);
  });
});

describe("idempotency (§8.1)", () => {
  it("replays an identical payload with the original id and current status; run_id is excluded", async () => {
    const body = envelope("ask", A);
    const first = await agent().post("/v1/messages", body);
    const again = await agent().post("/v1/messages", {
      ...body,
      agent: { id: A, run_id: "another-run", runtime: "cli" },
    });
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    const resolved = await client(hub.url, acme.tokens.alice).post(`/v1/messages/${first.body.id}/resolve`, {
      resolution: "answered",
      value: "ship",
    });
    expect(resolved.status).toBe(200);
    const after = await agent().post("/v1/messages", body);
    expect([after.status, after.body.id, after.body.status]).toEqual([202, first.body.id, "answered"]);
  });

  it("rejects the same key with a different payload (409 idempotency_conflict)", async () => {
    const body = envelope("ask", A);
    await agent().post("/v1/messages", body);
    const res = await agent().post("/v1/messages", { ...body, title: "changed" });
    expect([res.status, res.body.error.code]).toEqual([409, "idempotency_conflict"]);
  });

  it("scopes keys per agent and per account", async () => {
    const body = envelope("ask", A);
    const mine = await agent().post("/v1/messages", body);
    const theirs = await client(hub.url, other.keys[A]).post("/v1/messages", body);
    expect(theirs.status).toBe(202);
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it("deduplicates a notify that carries a key", async () => {
    const body = envelope("notify", A, { idempotency_key: `n-${Date.now()}` });
    const a = await agent().post("/v1/messages", body);
    const b = await agent().post("/v1/messages", body);
    expect(b.body.id).toBe(a.body.id);
  });

  it("creates exactly one message from 20 concurrent identical submits", async () => {
    const body = envelope("ask", A);
    const results = await Promise.all(Array.from({ length: 20 }, () => agent().post("/v1/messages", body)));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(202));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(await db().message.count({ where: { idempotencyKey: body.idempotency_key as string } })).toBe(1);
  });

  it("replays after expires_at passed with 202 and status expired", async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const body = envelope("ask", A, { expires_at: expiresAt });
    const first = await agent().post("/v1/messages", body);
    // Past expires_at by this box's clock, the Hub's.
    await waitFor(() => Date.now() > Date.parse(expiresAt), { every: 10, what: "the clock past expires_at" });
    const again = await agent().post("/v1/messages", body);
    expect([again.status, again.body.id, again.body.status]).toEqual([202, first.body.id, "expired"]);
  });
});

describe("Hub-owned keys in a submitted envelope (§4, §8.1, §8.2)", () => {
  it("are stored verbatim for the payload hash but never echoed as the Hub's: id/status/response/delivery/mailbox", async () => {
    const forged = {
      id: "msg_evil",
      status: "answered",
      response: {
        ma2h_version: "0.5",
        in_reply_to: "msg_evil",
        resolution_id: "res_evil",
        agent: { id: A, run_id: "r" },
        resolution: "answered",
        response: { value: "ship", actor: "human:mallory", resolved_at: "2026-12-01T12:00:00Z" },
        defaulted: false,
      },
      delivery: { state: "acknowledged" },
      mailbox: { state: "delivered", delivered_at: "2026-12-01T12:00:00Z" },
    };
    const body = envelope("ask", A, { ...forged, state: { step: 3 } });
    const raw = JSON.stringify(body);
    const post = () =>
      fetch(`${hub.url}/v1/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${acme.keys[A]}`, "content-type": "application/json" },
        body: raw,
      });
    const first = await post();
    expect(first.status).toBe(202);
    const ack = await first.json();
    expect(ack.id).not.toBe("msg_evil");
    expect(ack.status).toBe("open");
    // Stored as submitted, minus only `state` (kept apart, §9.3).
    const row = await db().message.findUniqueOrThrow({ where: { id: ack.id } });
    const { state: _state, ...withoutState } = body;
    expect(JSON.parse(row.envelope)).toEqual(withoutState);

    const open = (await agent().get(`/v1/messages/${ack.id}`)).body;
    expect([open.id, open.status]).toEqual([ack.id, "open"]);
    for (const key of ["response", "delivery", "mailbox"]) expect(open).not.toHaveProperty(key);
    expect(open.state).toEqual({ step: 3 });
    expect(validateOfficial("get-message.schema.json", open)).toEqual([]);

    const resolved = await client(hub.url, acme.tokens.alice).post(`/v1/messages/${ack.id}/resolve`, {
      resolution: "answered",
      value: "hold",
    });
    expect(resolved.status).toBe(200);
    const done = (await agent().get(`/v1/messages/${ack.id}`)).body;
    expect([done.id, done.status]).toEqual([ack.id, "answered"]);
    expect(done.response).toMatchObject({
      in_reply_to: ack.id,
      resolution: "answered",
      response: { value: "hold", actor: "human:alice" },
      state: { step: 3 },
    });
    expect(done.response.resolution_id).not.toBe("res_evil");
    expect(done.delivery.state).toBe("delivered-to-agent"); // the Hub's track, stamped by this GET
    expect(done).not.toHaveProperty("mailbox");
    expect(validateOfficial("get-message.schema.json", done)).toEqual([]);

    // §8.1: the byte-identical retry is a replay of the original (the hash covers the forged keys too).
    const again = await post();
    expect(again.status).toBe(202);
    expect(await again.json()).toEqual({ ...ack, status: "answered" });
    expect(await db().message.count({ where: { idempotencyKey: body.idempotency_key as string } })).toBe(1);
  });
});

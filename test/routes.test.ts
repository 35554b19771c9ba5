/**
 * In-process route tests: the /v1 route modules' handlers called directly with a `Request`, against
 * this file's database — the HTTP edge (auth, body reading, §8.5 envelope) without a build or a
 * server. The same handlers the built Hub serves; the `@/` imports resolve through vitest.config.ts.
 */
// covers: app/v1/messages/route.ts, app/v1/messages/[id]/route.ts, app/v1/messages/[id]/resolve/route.ts, lib/http/handler.ts, packages/protocol/src/submit-warnings.ts, packages/protocol/src/flat-schema.ts
import { describe, expect, it } from "vitest";
import { POST as resolvePost } from "../app/v1/messages/[id]/resolve/route";
import { GET as messageGet } from "../app/v1/messages/[id]/route";
import { POST as submitPost } from "../app/v1/messages/route";
import { db } from "../lib/db";
import { envelope } from "./support/envelope";
import { useHubFixture } from "./support/hub-fixture";
import { validateOfficial } from "./support/spec";

const A = "deploybot/dev-team";
const B = "overseer/fleet";
const BASE = "http://hub.test";
const fx = useHubFixture({
  accounts: { acme: { agents: [A, B], humans: [{ handle: "alice", role: "owner" }] } },
  server: "none",
});
const acme = fx.account("acme");

function request(method: string, path: string, token: string | undefined, body?: string, type = "application/json") {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  if (body !== undefined) headers["content-type"] = type;
  return new Request(BASE + path, { method, headers, body });
}
const params = (id: string) => ({ params: Promise.resolve({ id }) });
const submit = (body: unknown, token = acme.keys[A]) =>
  submitPost(request("POST", "/v1/messages", token, typeof body === "string" ? body : JSON.stringify(body)));

async function submitted(body: Record<string, unknown> = envelope("ask", A)): Promise<string> {
  const res = await submit(body);
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

/** A §8.5 error: `{error: {code, message}}`, plus the `extra` top-level keys some codes carry (§8.8). */
async function expectError(res: Response, status: number, code: string, extra: string[] = []) {
  const body = (await res.json()) as { error: { code: string; message: unknown } } & Record<string, unknown>;
  expect([res.status, body.error?.code]).toEqual([status, code]);
  expect(Object.keys(body).sort()).toEqual(["error", ...extra].sort());
  expect(Object.keys(body.error).sort()).toEqual(["code", "message"]);
  expect(typeof body.error.message).toBe("string");
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  return body;
}

describe("POST /v1/messages (in process)", () => {
  it("202 with the submit ack: id, status, poll_url, review_url, valid against submit-ack.schema.json", async () => {
    const res = await submit(envelope("ask", A));
    expect(res.status).toBe(202);
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    const ack = (await res.json()) as Record<string, string>;
    expect(Object.keys(ack).sort()).toEqual(["id", "poll_url", "review_url", "status"]);
    expect(ack.id).toMatch(/^msg_[0-9a-z]{26}$/);
    expect(ack.status).toBe("open");
    expect(ack.poll_url).toMatch(new RegExp(`/v1/messages/${ack.id}$`));
    expect(ack.review_url).toMatch(new RegExp(`/inbox/${ack.id}$`));
    expect(validateOfficial("submit-ack.schema.json", ack)).toEqual([]);
    expect(await db().message.count({ where: { id: ack.id } })).toBe(1);
  });

  it("400 validation_error for a body that is not JSON and 401 without a credential, in the §8.5 envelope; nothing created", async () => {
    const before = await db().message.count();
    await expectError(await submit("{not json"), 400, "validation_error");
    await expectError(await submit(JSON.stringify(envelope("notify", A)), ""), 401, "unauthenticated");
    expect(await db().message.count()).toBe(before);
  });

  it("422 invalid_field in the §8.5 envelope for the inter-agent leg, and creates nothing", async () => {
    const before = await db().message.count();
    await expectError(await submit(envelope("notify", A, { to: `agent:${B}` })), 422, "invalid_field");
    expect(await db().message.count()).toBe(before);
  });
});

describe("MA2H-Warning on submit (§10 unknown fields, docs/api.md)", () => {
  it("a top-level allowed_resolvers is ignored as unknown and named in an MA2H-Warning header; the ack stays closed", async () => {
    const ask = envelope("ask", A, { allowed_resolvers: ["human:alice"] });
    const res = await submit(ask);
    expect(res.status).toBe(202);
    expect(res.headers.get("ma2h-warning")).toBe("ignored-field=allowed_resolvers; use=request.allowed_resolvers");
    const ack = (await res.json()) as Record<string, string>;
    expect(Object.keys(ack).sort()).toEqual(["id", "poll_url", "review_url", "status"]);
    expect(validateOfficial("submit-ack.schema.json", ack)).toEqual([]);
    // Ignored indeed: the stored request names no resolvers, so the ask is open to every member (§9.1).
    const row = await db().message.findUniqueOrThrow({ where: { id: ack.id } });
    const stored = JSON.parse(String(row.envelope)) as { request: Record<string, unknown> };
    expect(stored.request.allowed_resolvers).toBeUndefined();

    // An idempotent replay of the same body is warned the same way.
    const again = await submit(ask);
    expect([again.status, again.headers.get("ma2h-warning")]).toEqual([
      202,
      "ignored-field=allowed_resolvers; use=request.allowed_resolvers",
    ]);

    const task = await submit(envelope("task", A, { allowed_resolvers: ["human:alice"] }));
    expect([task.status, task.headers.get("ma2h-warning")]).toEqual([
      202,
      "ignored-field=allowed_resolvers; use=action.allowed_resolvers",
    ]);
  });

  it("allowed_resolvers in its place draws no warning", async () => {
    const base = envelope("ask", A) as { request: Record<string, unknown> };
    const res = await submit({ ...base, request: { ...base.request, allowed_resolvers: ["human:alice"] } });
    expect([res.status, res.headers.get("ma2h-warning")]).toEqual([202, null]);
  });
});

describe("GET /v1/messages/{id} and POST …/resolve (in process)", () => {
  it("GET returns the submitted message, open, to its agent; 404 to another agent", async () => {
    const id = await submitted();
    const res = await messageGet(request("GET", `/v1/messages/${id}`, acme.keys[A]), params(id));
    expect(res.status).toBe(200);
    const got = (await res.json()) as Record<string, unknown>;
    expect(got).toMatchObject({ id, status: "open", type: "ask" });
    expect(validateOfficial("get-message.schema.json", got)).toEqual([]);
    await expectError(
      await messageGet(request("GET", `/v1/messages/${id}`, acme.keys[B]), params(id)),
      404,
      "not_found",
    );
  });

  it("resolve by an operator answers the ask; the GET then carries the response", async () => {
    const id = await submitted();
    const body = JSON.stringify({ resolution: "answered", value: "ship" });
    const res = await resolvePost(request("POST", `/v1/messages/${id}/resolve`, acme.tokens.alice, body), params(id));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id, status: "answered" });
    const got = (await (
      await messageGet(request("GET", `/v1/messages/${id}`, acme.keys[A]), params(id))
    ).json()) as Record<string, any>;
    expect(got.status).toBe("answered");
    expect(got.response).toMatchObject({ in_reply_to: id, resolution: "answered", response: { value: "ship" } });
    const again = await expectError(
      await resolvePost(request("POST", `/v1/messages/${id}/resolve`, acme.tokens.alice, body), params(id)),
      409,
      "already_terminal",
      ["id", "status", "resolution"],
    );
    expect(again).toMatchObject({ id, status: "answered" });
  });
});

describe("input asks as MCP elicitation's restricted schema (§5.2, in process)", () => {
  const schema = {
    type: "object",
    properties: {
      contact: { type: "string", format: "email" },
      ticket: { type: "string", pattern: "^OPS-\\d+$", minLength: 5, maxLength: 12 },
      replicas: { type: "integer", minimum: 1, maximum: 9, default: 3 },
      size: {
        type: "string",
        oneOf: [
          { const: "s", title: "Small" },
          { const: "l", title: "Large" },
        ],
      },
      regions: { type: "array", items: { type: "string", enum: ["eu", "us"] }, minItems: 1 },
    },
    required: ["contact", "regions"],
  };
  const inputAsk = (s: unknown) => envelope("ask", A, { request: { mode: "input", schema: s } });
  const resolve = (id: string, value: unknown) =>
    resolvePost(
      request(
        "POST",
        `/v1/messages/${id}/resolve`,
        acme.tokens.alice,
        JSON.stringify({ resolution: "answered", value }),
      ),
      params(id),
    );

  it("submit accepts it; /v1 resolve refuses a value outside a constraint (422, named, nothing changes) and takes one within", async () => {
    const id = await submitted(inputAsk(schema));
    for (const [value, message] of [
      [{ contact: "ops", regions: ["eu"] }, "contact: must be an email address"],
      [{ contact: "a@b.io", regions: ["eu"], ticket: "OPS-x1" }, "ticket: must match the pattern"],
      [{ contact: "a@b.io", regions: ["eu"], replicas: 10 }, "replicas: must be at most 9"],
      [{ contact: "a@b.io", regions: ["eu"], size: "Small" }, 'size: must be one of "s", "l"'],
      [{ contact: "a@b.io", regions: [] }, "regions: must list at least 1 choice"],
      [{ contact: "a@b.io", regions: ["eu", "mars"] }, 'regions: "mars" is not one of the listed choices'],
    ] as const) {
      const body = await expectError(await resolve(id, value), 422, "invalid_field");
      expect(body.error.message).toContain(message);
    }
    expect((await db().message.findUniqueOrThrow({ where: { id } })).status).toBe("open");
    const value = { contact: "a@b.io", ticket: "OPS-42", replicas: 9, size: "l", regions: ["us", "eu"] };
    const res = await resolve(id, value);
    expect(res.status).toBe(200);
    const got = (await (
      await messageGet(request("GET", `/v1/messages/${id}`, acme.keys[A]), params(id))
    ).json()) as Record<string, any>;
    expect(got.response.response.value).toEqual(value);
  });

  it("submit refuses nested objects, arrays of objects and $ref with a 422 saying what is not supported; nothing stored", async () => {
    const before = await db().message.count();
    for (const [properties, message] of [
      [{ a: { type: "object", properties: { b: { type: "string" } } } }, "nested objects are not supported"],
      [{ a: { type: "array", items: { type: "object" } } }, "arrays of objects are not supported"],
      [{ a: { $ref: "#/$defs/a" } }, "$ref is not supported"],
      [{ a: { type: "integer", maximum: 2, default: 5 } }, "request.schema.properties.a.default: must be at most 2"],
    ] as const) {
      const body = await expectError(await submit(inputAsk({ type: "object", properties })), 422, "invalid_field");
      expect(body.error.message).toContain(message);
    }
    expect(await db().message.count()).toBe(before);
  });

  it("default_on_expire must meet the constraints too", async () => {
    const ask = envelope("ask", A, {
      request: { mode: "input", schema, default_on_expire: { contact: "a@b.io", regions: ["eu"], replicas: 0 } },
    });
    const body = await expectError(await submit(ask), 422, "invalid_field");
    expect(body.error.message).toContain("replicas: must be at least 1");
  });
});

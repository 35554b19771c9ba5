/**
 * §8.8 resolve over HTTP against the real server: the §9.1 resolver rules (default and explicit
 * `allowed_resolvers`, roles, accounts, 404 vs 403), the Hub-attested actor, body validation, the
 * §7 first-terminal-wins CAS and the embedded §6 Response. A rejected resolve changes nothing.
 */
// covers: lib/messages/resolve.ts, lib/http/routes/resolve.ts, lib/messages/access.ts, packages/protocol/src/rules.ts
import { describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { addUser } from "../lib/principals/users";
import { client } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { envelope, type Provisioned } from "./support/provision";
import { loadVector, validateOfficial } from "./support/spec";
import { waitFor } from "./support/wait";

const A = "deploybot/dev-team";
const B = "overseer/fleet";
const UNKNOWN = "msg_00000000000000000000000000";

const humans = [
  { handle: "alice", role: "owner" },
  { handle: "carol", role: "admin" },
  { handle: "bob", role: "member" },
  { handle: "vic", role: "viewer" },
] as const;
const hub = useHubFixture({
  server: "in-process",
  accounts: { acme: { agents: [A, B], humans: [...humans] }, other: { agents: [A, B], humans: [...humans] } },
});
const acme = hub.account("acme");
const other = hub.account("other");

/** A client for an agent id or a human handle of the account. */
const as = (who: string, p: Provisioned = acme) => client(hub.url, p.keys[who] ?? p.tokens[who]);
const resolve = (id: string, body: unknown, who = "alice", p: Provisioned = acme, query = "") =>
  as(who, p).post(`/v1/messages/${id}/resolve${query}`, body);
const read = async (id: string) => (await as(A).get(`/v1/messages/${id}`)).body;
const ask = (request: Record<string, unknown>) => envelope("ask", A, { request });
const SELECT = {
  mode: "select",
  options: [
    { value: "ship", label: "Ship" },
    { value: "hold", label: "Hold" },
  ],
};

async function submit(body: Record<string, unknown> = envelope("ask", A), p: Provisioned = acme): Promise<string> {
  const res = await client(hub.url, p.keys[A]).post("/v1/messages", body);
  expect(res.status).toBe(202);
  return res.body.id as string;
}

function expectError(res: { status: number; body: { error?: { code?: string } } }, status: number, code: string): void {
  expect([res.status, res.body?.error?.code]).toEqual([status, code]);
}

/** Nothing was written: still open over GET and in the database, and no Resolution row. */
async function expectOpen(id: string): Promise<void> {
  const got = await read(id);
  expect([got.status, got.response]).toEqual(["open", undefined]);
  expect((await db().message.findUniqueOrThrow({ where: { id } })).status).toBe("open");
  expect(await db().resolution.count({ where: { messageId: id } })).toBe(0);
}

/** Raw POST, for exact bytes and hand-made bodies/content types. */
async function raw(path: string, token: string | undefined, body?: string, type?: string) {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  if (type) headers["content-type"] = type;
  const res = await fetch(hub.url + path, {
    method: "POST",
    headers,
    body: body === undefined ? undefined : new TextEncoder().encode(body),
  });
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
}

describe("who may resolve (§9.1, docs/decisions/protocol.md)", () => {
  it("an owner, admin or member resolves by default; the actor is attested, never the body's", async () => {
    for (const handle of ["alice", "carol", "bob"]) {
      const id = await submit();
      const t0 = Date.now();
      const res = await resolve(
        id,
        { resolution: "answered", value: "hold", comment: "Wait for QA", actor: "human:ceo" },
        handle,
      );
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(["id", "resolution_id", "status"]);
      expect([res.body.id, res.body.status]).toEqual([id, "answered"]);
      expect(res.body.resolution_id).toMatch(/^res_/);

      const got = await read(id);
      expect(validateOfficial("get-message.schema.json", got)).toEqual([]);
      expect(validateOfficial("response.schema.json", got.response)).toEqual([]);
      expect(got.status).toBe("answered");
      expect(got.response).toMatchObject({
        in_reply_to: id,
        resolution_id: res.body.resolution_id,
        resolution: "answered",
        defaulted: false,
        agent: { id: A },
      });
      const detail = got.response.response;
      expect(detail).toMatchObject({ value: "hold", edited: false, actor: `human:${handle}`, comment: "Wait for QA" });
      expect(Math.abs(Date.parse(detail.resolved_at) - t0)).toBeLessThan(10_000);
      // The audit says the answer came over the API (the inbox says "inbox", an email link "email").
      const audit = await db().auditEvent.findFirstOrThrow({ where: { messageId: id, event: "message.answered" } });
      expect([audit.actor, audit.detail]).toMatchObject([`human:${handle}`, { via: "resolve", channel: "api" }]);
    }
  });

  it("attests a person's handle in the message's own account", async () => {
    await addUser("alice@acme.test", "other", "al", "member"); // acme's alice also sits in `other` as al
    const theirs = await submit(envelope("ask", A), other);
    expect((await resolve(theirs, { resolution: "declined" }, "alice")).status).toBe(200);
    expect((await client(hub.url, other.keys[A]).get(`/v1/messages/${theirs}`)).body.response.response.actor).toBe(
      "human:al",
    );
    const mine = await submit();
    expect((await resolve(mine, { resolution: "declined" }, "alice")).status).toBe(200);
    expect((await read(mine)).response.response.actor).toBe("human:alice");
  });

  it("the submitting agent resolves by default as agent:<id>", async () => {
    const id = await submit();
    const res = await resolve(id, { resolution: "declined", comment: "not now" }, A);
    expect([res.status, res.body.status]).toEqual([200, "declined"]);
    const got = await read(id);
    expect([got.response.response.actor, got.response.response.value]).toEqual([`agent:${A}`, undefined]);
    expect(validateOfficial("get-message.schema.json", got)).toEqual([]);
  });

  it("answers 404 byte-identical to an unknown id's to callers who cannot see the message", async () => {
    const id = await submit(
      envelope("ask", A, { request: { ...SELECT, allowed_resolvers: ["human:bob", `agent:${B}`] } }),
    );
    const plain = await submit();
    const body = JSON.stringify({ resolution: "declined" });
    // B of acme is not listed on `plain`; everyone of `other` — even the same handles and agent ids as listed — is foreign.
    const callers: Array<[string, string]> = [
      [plain, acme.keys[B]!],
      [id, other.keys[B]!],
      [id, other.keys[A]!],
      [id, other.tokens.bob!],
      [plain, other.tokens.alice!],
    ];
    for (const [msg, token] of callers) {
      const unknown = await raw(`/v1/messages/${UNKNOWN}/resolve`, token, body, "application/json");
      const res = await raw(`/v1/messages/${msg}/resolve`, token, body, "application/json");
      expect(unknown.status).toBe(404);
      expect(res).toEqual(unknown);
    }
    expect(
      JSON.parse((await raw(`/v1/messages/${UNKNOWN}/resolve`, acme.keys[B], body, "application/json")).text).error
        .code,
    ).toBe("not_found");
    await expectOpen(id);
    await expectOpen(plain);
  });

  it("a viewer may not resolve (403 not_authorized), even when listed", async () => {
    for (const request of [SELECT, { ...SELECT, allowed_resolvers: ["human:vic"] }]) {
      const id = await submit(ask(request));
      expectError(await resolve(id, { resolution: "answered", value: "ship" }, "vic"), 403, "not_authorized");
      await expectOpen(id);
    }
  });

  it("an explicit human list replaces the default entirely", async () => {
    const id = await submit(ask({ ...SELECT, allowed_resolvers: ["human:bob"] }));
    expectError(await resolve(id, { resolution: "answered", value: "ship" }, "alice"), 403, "not_authorized");
    expectError(await resolve(id, { resolution: "answered", value: "ship" }, A), 403, "not_authorized");
    expectError(await resolve(id, { resolution: "answered", value: "ship" }, B), 404, "not_found");
    await expectOpen(id);
    expect((await resolve(id, { resolution: "answered", value: "ship" }, "bob")).status).toBe(200);
    expect((await read(id)).response.response.actor).toBe("human:bob");
  });

  it("an explicit agent list admits that agent and not the submitter; tasks read action.allowed_resolvers", async () => {
    const id = await submit(ask({ ...SELECT, allowed_resolvers: [`agent:${B}`] }));
    expectError(await resolve(id, { resolution: "declined" }, A), 403, "not_authorized");
    expectError(await resolve(id, { resolution: "declined" }, "alice"), 403, "not_authorized");
    await expectOpen(id);
    expect((await resolve(id, { resolution: "declined" }, B)).status).toBe(200);
    expect((await read(id)).response.response.actor).toBe(`agent:${B}`);

    const task = await submit(
      envelope("task", A, { action: { instructions: "Rotate", allowed_resolvers: ["human:carol"] } }),
    );
    expectError(await resolve(task, { resolution: "completed" }, "alice"), 403, "not_authorized");
    expect((await resolve(task, { resolution: "completed" }, "carol")).status).toBe(200);
  });
});

describe("resolve body (§8.8)", () => {
  it("is 400 validation_error unless a JSON object sent as application/json", async () => {
    const id = await submit();
    const good = JSON.stringify({ resolution: "answered", value: "ship" });
    const cases: Array<[string | undefined, string | undefined]> = [
      ["{not json", "application/json"],
      [good, "text/plain"],
      [good, undefined],
      ["", "application/json"],
      [undefined, "application/json"],
      ["[1]", "application/json"],
      ['"x"', "application/json"],
      ["null", "application/json"],
    ];
    for (const [body, type] of cases) {
      const res = await raw(`/v1/messages/${id}/resolve`, acme.tokens.alice, body, type);
      expect([body, type, res.status, JSON.parse(res.text).error.code]).toEqual([body, type, 400, "validation_error"]);
    }
    await expectOpen(id);
    expect(
      (await raw(`/v1/messages/${id}/resolve`, acme.tokens.alice, good, "application/json; charset=utf-8")).status,
    ).toBe(200);
  });

  it("is 422 invalid_field for schema-invalid bodies (sv-042, sv-055, sv-057) and non-resolver resolutions", async () => {
    const id = await submit(ask({ mode: "confirm" }));
    for (const vid of ["sv-042", "sv-055", "sv-057"]) {
      const vector = loadVector(vid);
      expect(vector.expect).toBe("invalid");
      expect(validateOfficial("resolve-request.schema.json", vector.input)).not.toEqual([]);
      expectError(await resolve(id, vector.input), 422, "invalid_field");
    }
    for (const body of [
      { resolution: "cancelled" },
      { resolution: "expired" },
      { resolution: "bogus" },
      { value: "approve" },
      { resolution: "answered", value: 5 },
      { resolution: "declined", comment: 7 },
    ]) {
      expectError(await resolve(id, body), 422, "invalid_field");
    }
    await expectOpen(id);
  });

  it("is 422 when the resolution does not fit the verb", async () => {
    const id = await submit();
    const task = await submit(envelope("task", A));
    for (const body of [{ resolution: "completed" }, { resolution: "dismissed" }])
      expectError(await resolve(id, body), 422, "invalid_field");
    for (const body of [{ resolution: "answered", value: "ship" }, { resolution: "declined" }])
      expectError(await resolve(task, body), 422, "invalid_field");
    await expectOpen(id);
    await expectOpen(task);
  });

  it("checks the value against select options, confirm synthesis and the flat input schema", async () => {
    const select = await submit();
    for (const value of ["zzz", "Ship", { value: "ship" }])
      expectError(await resolve(select, { resolution: "answered", value }), 422, "invalid_field");
    await expectOpen(select);

    const confirm = await submit(ask({ mode: "confirm" }));
    expectError(await resolve(confirm, { resolution: "answered", value: "yes" }), 422, "invalid_field");
    await expectOpen(confirm);
    expect((await resolve(confirm, { resolution: "answered", value: "approve" })).status).toBe(200);

    const schema = {
      type: "object",
      properties: { n: { type: "integer" }, note: { type: "string" } },
      required: ["n"],
    };
    const input = await submit(ask({ mode: "input", schema }));
    for (const value of [{ note: "no n" }, { n: "5" }, { n: 1.5 }, "5"])
      expectError(await resolve(input, { resolution: "answered", value }), 422, "invalid_field");
    await expectOpen(input);
    expect((await resolve(input, { resolution: "answered", value: { n: 5, note: "ok" } })).status).toBe(200);
    const got = await read(input);
    expect(got.response.response.value).toEqual({ n: 5, note: "ok" });
    expect(validateOfficial("get-message.schema.json", got)).toEqual([]);
  });

  it("honours permissions: allow_respond:false leaves only declined; allow_ignore:false forbids it", async () => {
    const noRespond = await submit(ask({ ...SELECT, permissions: { allow_respond: false } }));
    expectError(await resolve(noRespond, { resolution: "answered", value: "ship" }), 422, "invalid_field");
    await expectOpen(noRespond);
    expect((await resolve(noRespond, { resolution: "declined" })).status).toBe(200);

    const noIgnore = await submit(ask({ ...SELECT, permissions: { allow_ignore: false } }));
    expectError(await resolve(noIgnore, { resolution: "declined" }), 422, "invalid_field");
    await expectOpen(noIgnore);
    expect((await resolve(noIgnore, { resolution: "answered", value: "hold" })).status).toBe(200);
  });

  it("carries a task's checklist and comment, and omits `response` when there is neither", async () => {
    const task = await submit(envelope("task", A));
    const checklist = [{ text: "rotate", done: true }];
    expect((await resolve(task, { resolution: "completed", checklist, comment: "rotated" })).status).toBe(200);
    const got = await read(task);
    expect(validateOfficial("get-message.schema.json", got)).toEqual([]);
    expect(got.response.resolution).toBe("completed");
    expect(got.response.response).toMatchObject({ checklist, comment: "rotated", actor: "human:alice" });
    expect("value" in got.response.response).toBe(false);

    const bare = await submit(envelope("task", A));
    expect((await resolve(bare, { resolution: "completed" })).status).toBe(200);
    const plain = await read(bare);
    expect([plain.status, plain.response.resolution]).toEqual(["completed", "completed"]);
    expect("response" in plain.response).toBe(false);
    expect(validateOfficial("response.schema.json", plain.response)).toEqual([]);
  });

  it("refuses to resolve a notify (422) and leaves it delivered", async () => {
    const id = await submit(envelope("notify", A));
    for (const who of [A, "alice"])
      expectError(await resolve(id, { resolution: "declined" }, who), 422, "invalid_field");
    const got = await read(id);
    expect([got.status, got.response]).toEqual(["delivered", undefined]);
    expect(await db().resolution.count({ where: { messageId: id } })).toBe(0);
  });
});

describe("first terminal wins (§7)", () => {
  it("answers 409 already_terminal with the first outcome at the top level", async () => {
    const id = await submit();
    const first = await resolve(id, { resolution: "answered", value: "ship" }, "alice");
    expect(first.status).toBe(200);
    for (const [who, body] of [
      ["bob", { resolution: "declined" }],
      [A, { resolution: "answered", value: "hold" }],
    ] as const) {
      const res = await resolve(id, body, who);
      expectError(res, 409, "already_terminal");
      expect(res.body).toMatchObject({ id, status: "answered", resolution: "answered" });
    }
    const got = await read(id);
    expect(got.response.resolution_id).toBe(first.body.resolution_id);
    expect(got.response.response).toMatchObject({ value: "ship", actor: "human:alice" });
    expect(await db().resolution.count({ where: { messageId: id } })).toBe(1);
  });

  it("answers 409 showing expired when the resolve reaches an overdue open ask", async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const id = await submit(envelope("ask", A, { expires_at: expiresAt }));
    // Strictly past expires_at by this box's clock, the Hub's.
    await waitFor(() => Date.now() > Date.parse(expiresAt), { every: 10, what: "the clock past expires_at" });
    const res = await resolve(id, { resolution: "answered", value: "ship" });
    expectError(res, 409, "already_terminal");
    expect(res.body).toMatchObject({ id, status: "expired", resolution: "expired" });
    expect((await read(id)).response.response.actor).toBe("system:expiry");
  });

  it("treats ?session= as an unknown session (404) and changes nothing", async () => {
    const id = await submit();
    for (const who of [A, "alice"])
      expectError(await resolve(id, { resolution: "declined" }, who, acme, "?session=sess_x"), 404, "not_found");
    await expectOpen(id);
  });

  it("lets exactly one of 10 parallel resolves win; the nine losers name the winner", async () => {
    for (let round = 0; round < 3; round++) {
      const options = Array.from({ length: 10 }, (_, i) => ({ value: `v${i}`, label: `V${i}` }));
      const id = await submit(ask({ mode: "select", options }));
      const who = ["alice", "bob", "carol", A];
      const bodies = options.map((o, i) =>
        i % 3 === 2 ? { resolution: "declined", comment: `c${i}` } : { resolution: "answered", value: o.value },
      );
      const results = await Promise.all(bodies.map((b, i) => resolve(id, b, who[i % who.length])));
      const winners = results.flatMap((r, i) => (r.status === 200 ? [i] : []));
      expect(winners.length).toBe(1);
      const w = winners[0]!,
        status = bodies[w]!.resolution;
      for (const [i, r] of results.entries()) {
        if (i === w) continue;
        expectError(r, 409, "already_terminal");
        expect(r.body).toMatchObject({ id, status, resolution: status });
      }
      const got = await read(id);
      expect(got.status).toBe(status);
      expect(got.response.resolution_id).toBe(results[w]!.body.resolution_id);
      expect(got.response.response.value).toBe((bodies[w] as { value?: string }).value);
      expect(got.response.response.actor).toBe(
        who[w % who.length] === A ? `agent:${A}` : `human:${who[w % who.length]}`,
      );
      expect(await db().resolution.count({ where: { messageId: id } })).toBe(1);
    }
  });
});

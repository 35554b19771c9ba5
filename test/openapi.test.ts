/**
 * `GET /v1/openapi.json` against the built Hub: served without a credential and cacheable; a valid
 * OpenAPI 3.1 document; every route under app/v1 (found on disk) and the two well-known documents
 * described with the methods their route.ts defines; and real responses — one success and at least
 * one §8.5 error of every operation, captured from the running Hub — valid against the operation's
 * response schema for their status (Ajv 2020 over the document's components), with the headers it
 * declares. Successful request bodies are checked against the operation's request schema too.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { beforeAll, describe, expect, it } from "vitest";
import { ERROR_STATUS } from "../lib/protocol/errors";
import { envelope } from "./support/envelope";
import { client, repoRoot } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { createAjv, type Json } from "./support/spec";

const A = "deploybot/dev-team";
const FULL = "full/bot"; // its mailbox fills up, for the 429
const DEPTH = 2;
const hub = useHubFixture({
  accounts: { acme: { agents: [A, FULL], humans: [{ handle: "alice", role: "owner" }] } },
  env: { MA2H_INBOUND_MAILBOX_DEPTH: String(DEPTH) },
});
const acme = hub.account("acme");
const agent = () => client(hub.url, acme.keys[A]);
const alice = () => client(hub.url, acme.tokens.alice);
const anonymous = () => client(hub.url);

const METHODS = ["get", "post", "put", "patch", "delete"] as const;
let doc: Json;
let ajv: ReturnType<typeof createAjv>;
const DOC_ID = "urn:ma2h:openapi";

/** A JSON pointer into the document, for a `$ref` of it. */
function deref(node: Json): Json {
  const seen = new Set<string>();
  let out = node;
  while (typeof out.$ref === "string") {
    const pointer = out.$ref as string;
    if (seen.has(pointer) || !pointer.startsWith("#/")) throw new Error(`bad $ref ${pointer}`);
    seen.add(pointer);
    out = pointer
      .slice(2)
      .split("/")
      .reduce<Json>((at, key) => at?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
    if (out === undefined) throw new Error(`dangling $ref ${pointer}`);
  }
  return out;
}

/** A schema of the document, compiled in the document's scope so its `#/components/…` refs resolve. */
function compile(schema: Json) {
  return ajv.compile(typeof schema.$ref === "string" ? { $ref: `${DOC_ID}${schema.$ref}` } : schema);
}

interface Captured {
  status: number;
  headers: Headers;
  body: unknown;
}
const covered = new Map<string, Set<"success" | "error">>();

/** Checks a real response against the document; records which operation and which kind it covered. */
function check(method: string, path: string, res: Captured, sent?: unknown): void {
  const op = doc.paths?.[path]?.[method] as Json | undefined;
  expect(op, `${method.toUpperCase()} ${path} in the document`).toBeDefined();
  const where = `${method.toUpperCase()} ${path} → ${res.status}`;
  const declared = op!.responses[String(res.status)] as Json | undefined;
  expect(declared, `${where} is a documented status`).toBeDefined();
  const response = deref(declared!);
  for (const [name, header] of Object.entries((response.headers ?? {}) as Json)) {
    const value = res.headers.get(name);
    expect(value, `${where} sends ${name}`).not.toBeNull();
    const schema = deref(header as Json).schema as Json;
    const typed = schema.type === "integer" ? Number(value) : value;
    const validate = compile(schema);
    expect(validate(typed), `${where} header ${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
  }
  const media = response.content?.["application/json"] as Json | undefined;
  if (media === undefined) expect(res.body, `${where} has no body`).toBeNull();
  else {
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const validate = compile(media.schema as Json);
    expect(validate(res.body), `${where}: ${JSON.stringify(validate.errors)}\n${JSON.stringify(res.body)}`).toBe(true);
  }
  if (res.status < 300 && sent !== undefined && op!.requestBody) {
    const schema = deref(op!.requestBody as Json).content["application/json"].schema as Json;
    const validate = compile(schema);
    expect(validate(sent), `${where} request body: ${JSON.stringify(validate.errors)}`).toBe(true);
  }
  const key = `${method} ${path}`;
  const kinds = covered.get(key) ?? new Set();
  kinds.add(res.status < 400 ? "success" : "error");
  covered.set(key, kinds);
}

/** Every route.ts under `dir`, as its URL path and the methods it defines (`export const GET = …`). */
function routesUnder(dir: string, urlPrefix: string): { file: string; path: string; methods: string[] }[] {
  const out: { file: string; path: string; methods: string[] }[] = [];
  const walk = (abs: string) => {
    for (const name of readdirSync(abs)) {
      const child = join(abs, name);
      if (statSync(child).isDirectory()) walk(child);
      else if (name === "route.ts") {
        const segments = relative(join(repoRoot, dir), abs).split("/").filter(Boolean);
        // `[id]` → `{id}`, `[...path]` and the optional `[[...path]]` → `{...path}`.
        const path = [urlPrefix, ...segments.map((s) => s.replace(/^\[\[?(\.\.\.)?([^\]]+)\]?\]$/, "{$1$2}"))].join(
          "/",
        );
        const source = readFileSync(child, "utf8");
        // Defined handlers only: `export { noSuchEndpoint as POST }` re-exports are the §8.5 404s.
        const methods = [...source.matchAll(/export const (GET|POST|PUT|PATCH|DELETE)\b/g)].map((m) =>
          (m[1] as string).toLowerCase(),
        );
        out.push({ file: relative(repoRoot, child), path, methods });
      }
    }
  };
  walk(join(repoRoot, dir));
  return out;
}

beforeAll(async () => {
  const res = await anonymous().get("/v1/openapi.json");
  expect(res.status).toBe(200);
  doc = res.body as Json;
  ajv = createAjv();
  ajv.addSchema({ ...doc, $id: DOC_ID }, undefined, undefined, false);
});

describe("GET /v1/openapi.json", () => {
  it("is served without a credential, cacheable, and names this Hub as its server", async () => {
    const res = await fetch(`${hub.url}/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("cache-control")).toMatch(/public.*max-age=\d+/);
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers).toEqual([{ url: expect.stringMatching(/^https?:\/\//) }]);
    check("get", "/v1/openapi.json", { status: res.status, headers: res.headers, body: await res.json() });
  });

  it("validates as OpenAPI 3.1", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as never);
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect([result.valid, validator.version]).toEqual([true, "3.1"]);
  });

  it("describes every route under app/v1 and the well-known documents, with the methods each defines", () => {
    const routes = [
      // Not the catch-all 404s of either tree.
      ...routesUnder("app/v1", "/v1").filter((r) => r.path !== "/v1/{...path}"),
      ...routesUnder("app/well-known", "/.well-known").filter((r) => r.path !== "/.well-known/{...path}"),
    ];
    expect(routes.length).toBeGreaterThanOrEqual(12);
    const documented = Object.keys(doc.paths as Json);
    for (const route of routes) {
      expect(route.methods.length, `${route.file} defines a handler`).toBeGreaterThan(0);
      // A nested catch-all (agent ids contain `/`) is described by the concrete paths under its prefix.
      const catchAll = route.path.indexOf("{...");
      const paths =
        catchAll === -1
          ? [route.path]
          : documented.filter((p) => p.startsWith(route.path.slice(0, catchAll)) && p.length > catchAll);
      expect(paths.length, `${route.file} → ${route.path} is documented`).toBeGreaterThan(0);
      for (const p of paths) {
        expect(doc.paths[p], `${route.path} (${p})`).toBeDefined();
        const methods = METHODS.filter((m) => doc.paths[p][m] !== undefined);
        expect(methods.sort(), `${route.file}: methods of ${p}`).toEqual([...route.methods].sort());
      }
    }
  });

  it("its schemas are not vacuous: the checker refuses a wrong body, a wrong code and a missing id", () => {
    const schema = (name: string) => compile({ $ref: `#/components/schemas/${name}` });
    const error = { error: { code: "not_found", message: "no such message" } };
    expect(schema("Error404")(error)).toBe(true);
    expect(schema("Error404")({ error: { code: "rate_limited", message: "x" } })).toBe(false);
    expect(schema("SubmitAck")(error)).toBe(false);
    const ack = { id: "msg_1", status: "open", poll_url: "https://hub.example/v1/messages/msg_1" };
    expect(schema("SubmitAck")(ack)).toBe(true);
    expect(schema("SubmitAck")({ ...ack, extra: 1 })).toBe(false); // closed, like submit-ack.schema.json
    expect(schema("SubmitAck")({ ...ack, poll_url: "not a uri" })).toBe(false);
    const message = { ...envelope("notify", A), id: "msg_1", status: "delivered" };
    expect(schema("GetMessage")(message)).toBe(true);
    const { id: _id, ...noId } = message;
    expect(schema("GetMessage")(noId)).toBe(false);
    expect(schema("GetMessage")({ ...message, type: "poll" })).toBe(false);
  });

  it("describes the §8.5 envelope per status with exactly that status's codes, and both credentials", () => {
    const byStatus = new Map<number, string[]>();
    for (const [code, status] of Object.entries(ERROR_STATUS))
      byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    for (const [status, codes] of byStatus) {
      const schema = doc.components.schemas[`Error${status}`] as Json;
      expect(schema.properties.error.properties.code.enum, `Error${status}`).toEqual(codes);
    }
    expect(doc.components.schemas.Error.properties.error.properties.code.enum).toEqual(Object.keys(ERROR_STATUS));
    expect(doc.components.responses.Error429.headers).toHaveProperty("Retry-After");
    const schemes = doc.components.securitySchemes as Json;
    expect(schemes.agentKey).toMatchObject({ type: "http", scheme: "bearer" });
    expect(schemes.agentKeyHeader).toMatchObject({ type: "apiKey", in: "header", name: "X-API-Key" });
    expect(schemes.personalAccessToken).toMatchObject({ type: "http", scheme: "bearer" });
    expect(schemes.personalAccessTokenHeader).toMatchObject({ type: "apiKey", in: "header", name: "X-API-Key" });
    // The pushed Response and its signature header are described as a callback of submit.
    const callbacks = doc.paths["/v1/messages"].post.callbacks.response as Json;
    for (const cb of Object.values(callbacks) as Json[])
      expect(cb.post.parameters.map((p: Json) => p.name)).toContain("MA2H-Signature");
  });
});

describe("real responses match the document", () => {
  it("submit, pull, resolve, ack, cancel (§8.1–§8.8, §14.3)", async () => {
    const ask = envelope("ask", A);
    const submitted = await agent().post("/v1/messages", ask);
    expect(submitted.status).toBe(202);
    check("post", "/v1/messages", submitted, ask);
    check("post", "/v1/messages", await agent().post("/v1/messages", { ...ask, title: "" }));
    check("post", "/v1/messages", await anonymous().post("/v1/messages", ask));
    const id = (submitted.body as Json).id as string;

    const open = await agent().get(`/v1/messages/${encodeURIComponent(id)}`);
    expect(open.status).toBe(200);
    check("get", "/v1/messages/{id}", open);
    check("get", "/v1/messages/{id}", await agent().get("/v1/messages/msg_nosuchmessage"));
    check("get", "/v1/messages/{id}", await agent().get(`/v1/messages/${id}?wait=-1`));
    // An ack while the message is still open: 409 not_acknowledgeable.
    check("post", "/v1/messages/{id}/ack", await agent().post(`/v1/messages/${id}/ack`, {}));

    const answer = { resolution: "answered", value: "ship", comment: "go" };
    const resolved = await alice().post(`/v1/messages/${id}/resolve`, answer);
    expect(resolved.status).toBe(200);
    check("post", "/v1/messages/{id}/resolve", resolved, answer);
    const again = await alice().post(`/v1/messages/${id}/resolve`, answer);
    expect(again.status).toBe(409); // already_terminal, with the existing outcome
    expect(again.body).toMatchObject({ error: { code: "already_terminal" }, id, status: "answered" });
    check("post", "/v1/messages/{id}/resolve", again);
    check("post", "/v1/messages/{id}/resolve", await alice().post(`/v1/messages/${id}/resolve`, { resolution: "x" }));

    const terminal = await agent().get(`/v1/messages/${id}`);
    expect((terminal.body as Json).status).toBe("answered");
    check("get", "/v1/messages/{id}", terminal);
    const since = new Date(Date.now() + 60_000).toISOString();
    const unchanged = await fetch(`${hub.url}/v1/messages/${id}?since=${since}`, {
      headers: { authorization: `Bearer ${acme.keys[A]}` },
    });
    expect(unchanged.status).toBe(304);
    check("get", "/v1/messages/{id}", {
      status: 304,
      headers: unchanged.headers,
      body: (await unchanged.text()) || null,
    });

    const ackBody = { note: "seen" };
    const acked = await agent().post(`/v1/messages/${id}/ack`, ackBody);
    expect(acked.status).toBe(200);
    check("post", "/v1/messages/{id}/ack", acked, ackBody);

    const toCancel = await agent().post("/v1/messages", envelope("ask", A));
    const cancelId = (toCancel.body as Json).id as string;
    const cancelled = await agent().post(`/v1/messages/${cancelId}/cancel`);
    expect(cancelled.status).toBe(200);
    check("post", "/v1/messages/{id}/cancel", cancelled);
    check("post", "/v1/messages/{id}/cancel", await agent().post(`/v1/messages/${id}/cancel`)); // 409: answered
    check("post", "/v1/messages/{id}/cancel", await alice().post(`/v1/messages/${cancelId}/cancel`)); // 401: a PAT
  });

  it("directives: author, read back, drain, ack (§8.7, §13, §14.2)", async () => {
    const directive = { to: `agent:${A}`, title: "Pause deploys", body: "Incident.", priority: "high" };
    const authored = await alice().post("/v1/directives", directive);
    expect(authored.status).toBe(201);
    check("post", "/v1/directives", authored, directive);
    check("post", "/v1/directives", await agent().post("/v1/directives", directive)); // 403
    check("post", "/v1/directives", await alice().post("/v1/directives", { ...directive, to: "agent:nobody" })); // 422
    const dirId = (authored.body as Json).id as string;

    check("get", "/v1/directives/{id}", await alice().get(`/v1/directives/${dirId}`));
    check("get", "/v1/directives/{id}", await alice().get("/v1/directives/dir_nosuchdirective"));

    const drained = await agent().get("/v1/inbox?max=10");
    expect(((drained.body as Json).messages as Json[]).map((m) => m.directive.id)).toContain(dirId);
    check("get", "/v1/inbox", drained);
    check("get", "/v1/inbox", await agent().get("/v1/inbox?max=0"));
    check("get", "/v1/inbox", await agent().get("/v1/inbox?session=sess_x"));

    const ackBody = { ids: [dirId], note: "paused" };
    const acked = await agent().post("/v1/inbox/ack", ackBody);
    expect(acked.body).toEqual({ acked: 1 });
    check("post", "/v1/inbox/ack", acked, ackBody);
    check("post", "/v1/inbox/ack", await agent().post("/v1/inbox/ack", { ids: [] }));
    const read = await alice().get(`/v1/directives/${dirId}`);
    expect((read.body as Json).delivery.state).toBe("acknowledged");
    check("get", "/v1/directives/{id}", read);
  });

  it("429 with Retry-After once a mailbox is full (§8.6)", async () => {
    for (let i = 0; i < DEPTH; i++) {
      const ok = await alice().post("/v1/directives", { to: `agent:${FULL}`, title: `fill ${i}` });
      expect(ok.status).toBe(201);
    }
    const full = await alice().post("/v1/directives", { to: `agent:${FULL}`, title: "one too many" });
    expect(full.status).toBe(429);
    expect(full.headers.get("retry-after")).toMatch(/^\d+$/);
    check("post", "/v1/directives", full);
  });

  it("presence, and the unauthenticated documents (§8.0, §9.7, §15.3)", async () => {
    const presence = `/v1/agents/${encodeURIComponent(A)}/presence`;
    check("get", "/v1/agents/{agent_id}/presence", await alice().get(presence));
    check("get", "/v1/agents/{agent_id}/presence", await agent().get(presence)); // 403
    check("get", "/v1/agents/{agent_id}/presence", await anonymous().get(presence)); // 401
    check("get", "/.well-known/ma2h", await anonymous().get("/.well-known/ma2h"));
    check("get", "/.well-known/ma2h-keys", await anonymous().get("/.well-known/ma2h-keys"));
  });
});

// Operations with no reachable error: a GET of a public document answers 200 whatever is sent.
const NO_ERROR_REACHABLE = new Set(["get /v1/openapi.json", "get /.well-known/ma2h", "get /.well-known/ma2h-keys"]);

describe("coverage", () => {
  it("every documented operation had a real success, and a real error where one is reachable, checked", () => {
    for (const [path, item] of Object.entries(doc.paths as Json))
      for (const method of METHODS) {
        if (!(item as Json)[method]) continue;
        const key = `${method} ${path}`;
        const kinds = covered.get(key);
        expect(kinds?.has("success"), `${key}: a real success response was checked`).toBe(true);
        if (!NO_ERROR_REACHABLE.has(key))
          expect(kinds?.has("error"), `${key}: a real error response was checked`).toBe(true);
      }
  });
});

/**
 * `GET /v1/openapi.json` against the built Hub: served without a credential and cacheable; a valid
 * OpenAPI 3.1 document; every route under app/v1 (found on disk) and the two well-known documents
 * described with the methods their route.ts defines; and real responses — one success and at least
 * one §8.5 error of every operation, captured from the running Hub — valid against the operation's
 * response schema for their status (Ajv 2020 over the document's components), with the headers it
 * declares. Successful request bodies are checked against the operation's request schema too.
 */
// covers: lib/openapi/document.ts, lib/openapi/json-schema.ts, lib/http/routes/openapi.ts, packages/protocol/src/api-bodies.ts
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { appFolderOf, V1_ROUTES } from "@ma2h/protocol/routes";
import { ALSO_STATUS, ERROR_STATUS } from "@ma2h/protocol/errors";
import { envelope } from "./support/envelope";
import { client, repoRoot } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { createAjv, type Json } from "./support/spec";

const A = "deploybot/dev-team";
const FULL = "full/bot"; // its mailbox fills up, for the 429
const S = "sess/bot"; // registers sessions, is killed, stopped and resumed (§16)
const P = "peer/bot"; // the addressee of the inter-agent capture (§4)
const DEPTH = 2;
const LIVE_CAP = 2;
const hub = useHubFixture({
  accounts: {
    acme: {
      agents: [A, FULL, S, P],
      humans: [
        { handle: "alice", role: "owner" },
        { handle: "bob", role: "member" },
      ],
    },
  },
  env: { MA2H_INBOUND_MAILBOX_DEPTH: String(DEPTH), MA2H_SESSION_MAX_LIVE_PER_AGENT: String(LIVE_CAP) },
});
const acme = hub.account("acme");
const agent = () => client(hub.url, acme.keys[A]);
const alice = () => client(hub.url, acme.tokens.alice);
const anonymous = () => client(hub.url);
const sessionAgent = () => client(hub.url, acme.keys[S]);
const peer = () => client(hub.url, acme.keys[P]);
const bob = () => client(hub.url, acme.tokens.bob);

/** A DELETE with an optional credential, read like the support client's answers. */
async function del(path: string, token?: string): Promise<Captured> {
  const res = await fetch(hub.url + path, {
    method: "DELETE",
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

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
    // A header the document marks `required: false` is conditional: checked when it is sent.
    if (deref(header as Json).required === false && value === null) continue;
    expect(value, `${where} sends ${name}`).not.toBeNull();
    const schema = deref(header as Json).schema as Json;
    const typed = schema.type === "integer" ? Number(value) : value;
    const validate = compile(schema);
    expect(validate(typed), `${where} header ${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
  }
  const media = response.content?.["application/json"] as Json | undefined;
  if (response.content?.["text/event-stream"] !== undefined)
    expect(res.headers.get("content-type"), `${where} is an event stream`).toMatch(/^text\/event-stream/);
  else if (media === undefined) expect(res.body, `${where} has no body`).toBeNull();
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
        // A /v1 route file exports what the route manifest gives its folder (test/route-manifest.test.ts
        // holds it to that); elsewhere, defined handlers only: `export { noSuchEndpoint as POST }`
        // re-exports are the §8.5 404s.
        const folder = relative(join(repoRoot, dir), abs);
        const methods = source.includes("v1RouteModule(")
          ? [...new Set(V1_ROUTES.filter((e) => appFolderOf(e.path) === folder).map((e) => e.method.toLowerCase()))]
          : [...source.matchAll(/export const (GET|POST|PUT|PATCH|DELETE)\b/g)].map((m) =>
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
      // Each concrete path documents only methods the route defines; together (a catch-all's
      // paths may split them: presence is a GET, stop and resume POSTs) they document all of them.
      const union = new Set<string>();
      for (const p of paths) {
        expect(doc.paths[p], `${route.path} (${p})`).toBeDefined();
        const methods = METHODS.filter((m) => doc.paths[p][m] !== undefined);
        if (catchAll === -1)
          expect(methods.sort(), `${route.file}: methods of ${p}`).toEqual([...route.methods].sort());
        else for (const m of methods) expect(route.methods, `${route.file}: ${m} of ${p}`).toContain(m);
        for (const m of methods) union.add(m);
      }
      expect([...union].sort(), `${route.file}: methods documented`).toEqual([...route.methods].sort());
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
    // A code §8.5 places in a second status class is listed under that status too.
    for (const [code, statuses] of Object.entries(ALSO_STATUS))
      for (const status of statuses ?? []) byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    expect(byStatus.get(410)).toContain("session_closed_by_operator");
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

  it("the inter-agent leg: an addressed ask, its message and response entries, the mailbox track (§4, §8.7.1)", async () => {
    await db().account.update({ where: { slug: "acme" }, data: { interAgentEnabled: true } });
    const register = async (c: ReturnType<typeof agent>) =>
      ((await c.post("/v1/sessions", {})).body as Json).session.id;
    const mine = await register(agent());
    const theirs = await register(peer());
    const ask = envelope("ask", A, { to: `agent:${P}`, agent: { id: A, run_id: "r", runtime: "cli", session: mine } });
    const sent = await agent().post("/v1/messages", ask);
    expect(sent.status).toBe(202);
    check("post", "/v1/messages", sent, ask);
    check("post", "/v1/messages", await agent().post("/v1/messages", { ...ask, to: "agent:nobody/here" })); // 422
    const id = (sent.body as Json).id as string;
    const drained = await peer().get(`/v1/inbox?session=${theirs}`);
    expect(((drained.body as Json).messages as Json[]).map((m) => m.message?.id)).toContain(id);
    check("get", "/v1/inbox", drained);
    const answer = { resolution: "answered", value: "ship" };
    expect((await peer().post(`/v1/messages/${id}/resolve?session=${theirs}`, answer)).status).toBe(200);
    const acked = await peer().post(`/v1/inbox/ack?session=${theirs}`, { ids: [id] });
    check("post", "/v1/inbox/ack", acked, { ids: [id] });
    const responses = await agent().get(`/v1/inbox?session=${mine}`);
    expect(((responses.body as Json).messages as Json[])[0]?.response?.in_reply_to).toBe(id);
    check("get", "/v1/inbox", responses);
    const read = await agent().get(`/v1/messages/${id}`);
    expect((read.body as Json).mailbox.state).toBe("acknowledged");
    check("get", "/v1/messages/{id}", read);
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

  it("sessions: register, list, read, close, the kill-switch, stop and resume, the touchpoints (§16)", async () => {
    const enc = encodeURIComponent;
    const register = {
      run_id: "run_1",
      label: "ci · #21",
      kind: "worker",
      labels: { repo: "acme/web" },
      ttl_seconds: 600,
    };
    const first = await sessionAgent().post("/v1/sessions", register);
    expect(first.status).toBe(201);
    check("post", "/v1/sessions", first, register);
    const s1 = (first.body as Json).session.id as string;
    const second = await sessionAgent().post("/v1/sessions"); // no body at all
    expect(second.status).toBe(201);
    check("post", "/v1/sessions", second);
    const s2 = (second.body as Json).session.id as string;
    const overCap = await sessionAgent().post("/v1/sessions", {});
    expect(overCap.status).toBe(429); // LIVE_CAP live sessions already
    check("post", "/v1/sessions", overCap);
    check("post", "/v1/sessions", await sessionAgent().post("/v1/sessions", { ttl_seconds: "long" })); // 400
    check("post", "/v1/sessions", await alice().post("/v1/sessions", {})); // 401: a PAT

    const own = await sessionAgent().get("/v1/sessions");
    expect(own.body).toMatchObject({ scope: "own" });
    expect(((own.body as Json).sessions as Json[]).map((x) => x.id).sort()).toEqual([s1, s2].sort());
    check("get", "/v1/sessions", own);
    const ofAccount = await alice().get(`/v1/sessions?account=acme&agent_id=${enc(S)}`);
    expect(ofAccount.body).toMatchObject({ scope: "account" });
    check("get", "/v1/sessions", ofAccount);
    check("get", "/v1/sessions", await alice().get("/v1/sessions?account=nosuchaccount")); // 404
    check("get", "/v1/sessions", await anonymous().get("/v1/sessions")); // 401

    check("get", "/v1/sessions/{id}", await sessionAgent().get(`/v1/sessions/${s1}`));
    check("get", "/v1/sessions/{id}", await alice().get(`/v1/sessions/${s1}`));
    check("get", "/v1/sessions/{id}", await agent().get(`/v1/sessions/${s1}`)); // 404: another agent's

    // The touchpoints presenting a live session, and an unknown one (404).
    check("get", "/v1/inbox", await sessionAgent().get(`/v1/inbox?session=${s1}&max=5`));
    // §8.7.2 the stream: a live session's event stream (read its first event, then hang up), and its refusals.
    const streamed = await fetch(`${hub.url}/v1/inbox/stream?session=${s1}`, {
      headers: { authorization: `Bearer ${acme.keys[S]}` },
    });
    expect(streamed.status).toBe(200);
    const reader = streamed.body!.getReader();
    const opening = await reader.read();
    expect(new TextDecoder().decode(opening.value)).toMatch(/^retry: \d+/);
    await reader.cancel().catch(() => {});
    check("get", "/v1/inbox/stream", { status: streamed.status, headers: streamed.headers, body: null });
    check("get", "/v1/inbox/stream", await sessionAgent().get("/v1/inbox/stream")); // 400: no session
    check("get", "/v1/inbox/stream", await sessionAgent().get("/v1/inbox/stream?session=sess_nosuchsession"));
    const unknown = await sessionAgent().get("/v1/inbox?session=sess_nosuchsession");
    expect(unknown.status).toBe(404);
    check("get", "/v1/inbox", unknown);
    check("post", "/v1/inbox/ack", await sessionAgent().post(`/v1/inbox/ack?session=${s1}`, { ids: ["dir_none"] }));
    check(
      "post",
      "/v1/inbox/ack",
      await sessionAgent().post("/v1/inbox/ack?session=sess_nosuchsession", { ids: ["dir_none"] }),
    );
    check(
      "post",
      "/v1/messages/{id}/resolve",
      await alice().post(`/v1/messages/msg_nosuchmessage/resolve?session=${s1}`, { resolution: "dismissed" }),
    ); // 404: a person holds no sessions
    const submitted = envelope("notify", S, { agent: { id: S, run_id: "run_1", runtime: "cli", session: s1 } });
    const accepted = await sessionAgent().post("/v1/messages", submitted);
    expect(accepted.status).toBe(202);
    check("post", "/v1/messages", accepted, submitted);

    // The owner's own close: 200 `closed`, then its touchpoints answer 410 gone.
    const closed = await del(`/v1/sessions/${s2}`, acme.keys[S]);
    expect((closed.body as Json).session).toMatchObject({ id: s2, state: "closed" });
    expect((closed.body as Json).session.closed_by_operator).toBeUndefined();
    check("delete", "/v1/sessions/{id}", closed);
    const gone = await sessionAgent().get(`/v1/inbox?session=${s2}`);
    expect(gone.status).toBe(410);
    expect((gone.body as Json).error.code).toBe("gone");
    check("get", "/v1/inbox", gone);
    check("get", "/v1/inbox/stream", await sessionAgent().get(`/v1/inbox/stream?session=${s2}`)); // 410
    const goneDirective = await alice().post("/v1/directives", { to: `agent:${S}#${s2}`, title: "too late" });
    expect([goneDirective.status, (goneDirective.body as Json).error.code]).toEqual([410, "destination_gone"]);
    check("post", "/v1/directives", goneDirective);
    const goneResolve = await sessionAgent().post(`/v1/messages/msg_nosuchmessage/resolve?session=${s2}`, {
      resolution: "dismissed",
    });
    expect(goneResolve.status).toBe(410);
    check("post", "/v1/messages/{id}/resolve", goneResolve);
    check("delete", "/v1/sessions/{id}", await del(`/v1/sessions/${s1}`, acme.keys[A])); // 404: another agent's
    check("delete", "/v1/sessions/{id}", await del(`/v1/sessions/${s1}`, acme.tokens.bob)); // 403: a member
    check("delete", "/v1/sessions/{id}", await del(`/v1/sessions/${s1}`)); // 401

    // The kill-switch: an owner closes s1 — marked, and its holder is told to stop (410 / 403).
    const killed = await del(`/v1/sessions/${s1}`, acme.tokens.alice);
    expect((killed.body as Json).session).toMatchObject({ id: s1, state: "closed", closed_by_operator: true });
    check("delete", "/v1/sessions/{id}", killed);
    const stopDrain = await sessionAgent().get(`/v1/inbox?session=${s1}`);
    expect([stopDrain.status, (stopDrain.body as Json).error.code]).toEqual([410, "session_closed_by_operator"]);
    check("get", "/v1/inbox", stopDrain);
    const stopAck = await sessionAgent().post(`/v1/inbox/ack?session=${s1}`, { ids: ["dir_none"] });
    expect([stopAck.status, (stopAck.body as Json).error.code]).toEqual([410, "session_closed_by_operator"]);
    check("post", "/v1/inbox/ack", stopAck);
    const stopSubmit = await sessionAgent().post(
      "/v1/messages",
      envelope("notify", S, { agent: { id: S, run_id: "run_1", runtime: "cli", session: s1 } }),
    );
    expect([stopSubmit.status, (stopSubmit.body as Json).error.code]).toEqual([410, "session_closed_by_operator"]);
    check("post", "/v1/messages", stopSubmit);
    const refused = await sessionAgent().post("/v1/sessions", {});
    expect([refused.status, (refused.body as Json).error.code]).toEqual([403, "session_closed_by_operator"]);
    check("post", "/v1/sessions", refused);

    // Resume (people only), then the explicit stop.
    const resume = `/v1/agents/${enc(S)}/resume?account=acme`;
    check("post", "/v1/agents/{agent_id}/resume", await sessionAgent().post(resume)); // 403: an agent
    check("post", "/v1/agents/{agent_id}/resume", await bob().post(resume)); // 403: a member
    const resumed = await alice().post(resume);
    expect(resumed.body).toEqual({ agent_id: S, stopped: false });
    check("post", "/v1/agents/{agent_id}/resume", resumed);
    check("post", "/v1/agents/{agent_id}/resume", await alice().post("/v1/agents/nobody/resume?account=acme")); // 404
    const again = await sessionAgent().post("/v1/sessions", {});
    expect(again.status).toBe(201);

    const stop = `/v1/agents/${S}/stop?account=acme`; // the literal `/` form
    const stopped = await alice().post(stop);
    expect(stopped.body).toEqual({ agent_id: S, stopped: true });
    check("post", "/v1/agents/{agent_id}/stop", stopped);
    check("post", "/v1/agents/{agent_id}/stop", await sessionAgent().post(stop)); // 403: an agent
    check("post", "/v1/agents/{agent_id}/stop", await anonymous().post(stop)); // 401
    check("post", "/v1/agents/{agent_id}/stop", await alice().post(`/v1/agents/${enc(S)}/stop?account=nosuch`)); // 404
    check("post", "/v1/agents/{agent_id}/stop", await alice().post(`/v1/agents/${enc(S)}/stop?account=`)); // 400

    // The presence read lists the agent's sessions, all ended now.
    const presence = await alice().get(`/v1/agents/${enc(S)}/presence?account=acme`);
    const sessions = (presence.body as Json).sessions as Json[];
    expect(sessions.map((x) => x.id)).toEqual(expect.arrayContaining([s1, s2, (again.body as Json).session.id]));
    expect(sessions.every((x) => x.state === "closed")).toBe(true);
    check("get", "/v1/agents/{agent_id}/presence", presence);
  });

  it("presence, the agent's own read, and the unauthenticated documents (§8.0, §9.7, §15.3)", async () => {
    const presence = `/v1/agents/${encodeURIComponent(A)}/presence`;
    check("get", "/v1/agents/{agent_id}/presence", await alice().get(presence));
    check("get", "/v1/agents/{agent_id}/presence", await agent().get(presence)); // 403
    check("get", "/v1/agents/{agent_id}/presence", await anonymous().get(presence)); // 401
    check("get", "/v1/agents/me", await agent().get("/v1/agents/me"));
    check("get", "/v1/agents/me", await alice().get("/v1/agents/me")); // 401: not an agent credential
    check("get", "/.well-known/ma2h", await anonymous().get("/.well-known/ma2h"));
    check("get", "/.well-known/ma2h-keys", await anonymous().get("/.well-known/ma2h-keys"));
    check("get", "/.well-known/ma2h-audit-keys", await anonymous().get("/.well-known/ma2h-audit-keys"));
  });
});

// Operations with no reachable error: a GET of a public document answers 200 whatever is sent.
const NO_ERROR_REACHABLE = new Set([
  "get /v1/openapi.json",
  "get /.well-known/ma2h",
  "get /.well-known/ma2h-keys",
  "get /.well-known/ma2h-audit-keys",
]);

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

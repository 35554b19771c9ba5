/**
 * What the fuzzer found, each pinned by a request that failed before the fix: framework
 * 405s and HTML 404s under /v1 and /.well-known, heads Node or Next could not parse, bodies the
 * Hub could not store, a client gone mid-body, and form posts Next answered with a 500. Every answer
 * is a §8.5 envelope and nothing is stored.
 */
// covers: server/request-guard.ts, server/action-reply.ts, lib/http/json-limits.ts, lib/http/body.ts, lib/http/handler.ts, app/v1/[[...path]]/route.ts
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { envelopeProblem } from "../scripts/fuzz/oracle";
import { type RawResponse, sendRaw } from "../scripts/fuzz/send";
import { envelope } from "./support/envelope";
import { repoRoot } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";

const A = "acme/fuzzed";
const hub = useHubFixture({ accounts: { acme: { agents: [A], humans: [{ handle: "ada", role: "owner" }] } } });
const key = () => hub.account("acme").keys[A] as string;

async function raw(head: string, body = "", halfClose = false): Promise<RawResponse> {
  const url = new URL(hub.url);
  const outcome = await sendRaw(Buffer.concat([Buffer.from(head, "latin1"), Buffer.from(body, "utf8")]), {
    host: url.hostname,
    port: Number(url.port),
    timeoutMs: 10_000,
    halfClose,
  });
  if (!outcome.ok) throw new Error(`no response: ${outcome.error}`);
  return outcome.response;
}
const request = (method: string, target: string, headers: string[] = [], body = "") =>
  raw(
    `${method} ${target} HTTP/1.1\r\n${[`Host: ${new URL(hub.url).host}`, ...headers, "Connection: close"].join("\r\n")}\r\n\r\n`,
    body,
  );

function expectEnvelope(res: RawResponse, status: number, code: string): void {
  expect(envelopeProblem(res)).toBeNull();
  expect([res.status, JSON.parse(res.body.toString()).error.code]).toEqual([status, code]);
}

const submit = (body: string) =>
  request(
    "POST",
    "/v1/messages",
    [`Authorization: Bearer ${key()}`, "Content-Type: application/json", `Content-Length: ${Buffer.byteLength(body)}`],
    body,
  );

describe("fuzz findings", () => {
  it("an unserved verb or path under /v1 and /.well-known is the 404 envelope, not a 405 or an HTML page", async () => {
    const cases: Array<[string, string]> = [
      ["PUT", "/v1/messages"],
      ["DELETE", "/v1/messages/msg_00000000000000000000000000"],
      ["GET", "/v1/messages/msg_00000000000000000000000000/resolve"],
      ["POST", "/v1/inbox"],
      ["PATCH", "/v1/directives"],
      ["GET", "/v1"],
      ["GET", "/v1/nothing/here"],
      ["GET", "/.well-known/nothing"],
      ["POST", "/.well-known/ma2h"],
      ["DELETE", "/v1/openapi.json"],
    ];
    for (const [method, target] of cases) {
      const res = await request(method, target, [`Authorization: Bearer ${key()}`, "Content-Length: 0"]);
      expect(`${method} ${target} ${res.status}`).toBe(`${method} ${target} 404`);
      expectEnvelope(res, 404, "not_found");
    }
    expect((await request("GET", "/.well-known/ma2h")).status).toBe(200);
    expect((await request("GET", "/.well-known/ma2h-capability")).status).toBe(200);
  });

  it("a request head Node cannot parse, or a target Next cannot, is a 400 envelope", async () => {
    const heads = [
      "GET /v1/inbox HTTP/9.9\r\n\r\n",
      "GET /v1/inbox HTTP/1.1\r\nBad Header: x\r\n\r\n",
      `GET /v1/inbox HTTP/1.1\r\nHost: h\r\nX-Long: ${"a".repeat(20_000)}\r\n\r\n`,
      "CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n",
    ];
    for (const head of heads) expectEnvelope(await raw(head), 400, "validation_error");
    for (const target of [
      "/v1/messages/%zz",
      "/v1/messages/%",
      "/v1/messages/%00",
      "/v1/messages/%ED%A0%80",
      "/v1/agents/acme%2Ffuzzed/presence?account=%00",
      "/v1/inbox/../messages",
      "/v1/%2e%2e/inbox",
      "/v1/messages/msg_x/./ack",
      "*",
      "http://evil.example/v1/inbox",
      "//evil.example/v1/inbox",
    ]) {
      const res = await request("GET", target);
      expect(`${target} ${res.status}`).toBe(`${target} 400`);
      expectEnvelope(res, 400, "validation_error");
    }
    expectEnvelope(await request("TRACE", "/v1/inbox"), 404, "not_found");
  });

  it("a body with NUL, a lone surrogate, an overflowing number or deep nesting is 400 and stores nothing", async () => {
    const before = await db().message.count();
    const base = envelope("notify", A);
    const bodies = [
      JSON.stringify({ ...base, title: "a\u0000b" }),
      JSON.stringify(base).replace('"title":"', '"title":"\\ud800'),
      JSON.stringify({ ...base, extensions: { n: 1 } }).replace('"n":1', '"n":1e400'),
      JSON.stringify({ ...base, extensions: JSON.parse(`${'{"a":'.repeat(70)}1${"}".repeat(70)}`) }),
    ];
    for (const body of bodies) expectEnvelope(await submit(body), 400, "validation_error");
    expect(await db().message.count()).toBe(before);
    // A well-formed pair (an emoji) is no lone surrogate.
    expect((await submit(JSON.stringify({ ...base, title: "ship it 🚀" }))).status).toBe(202);
  });

  it("a client that hangs up mid-body gets a 400, and the Hub logs no unhandled error", async () => {
    const body = JSON.stringify(envelope("notify", A));
    const res = await raw(
      `POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key()}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
      body.slice(0, 40),
      true,
    );
    expectEnvelope(res, 400, "validation_error");
    expect(hub.web.output()).not.toContain("unhandled error");
  });

  it("a form post Next would answer with a 500 is a 400: next-auth with a non-JSON JSON body, a malformed multipart page post", async () => {
    const auth = await request(
      "POST",
      "/api/auth/signin",
      ["Content-Type: application/json", "Content-Length: 14"],
      "payload=%7B%7D",
    );
    expect(auth.status).toBe(400);
    const form = await request(
      "POST",
      "/",
      ["Content-Type: multipart/form-data; boundary=x", "Content-Length: 2"],
      "{}",
    );
    expectEnvelope(form, 400, "validation_error");
    // Under /api, a path with no route handler is the not-found page, which takes actions too.
    const apiForm = await request(
      "POST",
      "/api/slack/interactions",
      ["Content-Type: multipart/form-data; boundary=x", "Content-Length: 2"],
      "{}",
    );
    expectEnvelope(apiForm, 400, "validation_error");
    // A well-formed multipart post still reaches Next (replayed), which answers it as it would.
    const ok = '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n';
    const replayed = await request(
      "POST",
      "/signin",
      ["Content-Type: multipart/form-data; boundary=x", `Content-Length: ${ok.length}`],
      ok,
    );
    // Next decoded the replayed form and found no action id in it: its own answer, not ours.
    expect([replayed.status, replayed.headers["x-nextjs-action-not-found"]]).toEqual([400, "1"]);
    expect(envelopeProblem(replayed)).not.toBeNull();
  });

  it("a Server Action request Next would answer with a 500: a malformed id or Origin is 400, a cross-site one 403", async () => {
    const id = "7f".padEnd(42, "0");
    const post = (headers: string[]) =>
      request("POST", "/inbox", [...headers, "Content-Type: text/plain;charset=UTF-8", "Content-Length: 2"], "[]");
    expectEnvelope(await post(["Next-Action: "]), 400, "validation_error");
    expectEnvelope(await post(["Next-Action: text/html"]), 400, "validation_error");
    expectEnvelope(await post([`Next-Action: ${id}`, "Origin: https"]), 400, "validation_error");
    expectEnvelope(await post([`Next-Action: ${id}`, "Origin: https://evil.example"]), 403, "not_authorized");
    expectEnvelope(await post([`Next-Action: ${id}`, "Origin: null"]), 403, "not_authorized");
    // Same-origin with an id of the right shape that names no action: Next's own answer, not a 5xx.
    const unknown = await post([`Next-Action: ${id}`, `Origin: ${hub.url}`]);
    expect(unknown.status).toBeGreaterThanOrEqual(400);
    expect(unknown.status).toBeLessThan(500);
  });

  it("a Server Action body React's decoder would choke on is 400 before Next: not JSON, a dangling part, a bad BigInt", async () => {
    // A real action of this build and a page that serves it (Next's server-reference manifest).
    const manifest = JSON.parse(readFileSync(join(repoRoot, ".next/server/server-reference-manifest.json"), "utf8"));
    const [id] = Object.entries<{ workers: Record<string, unknown> }>(manifest.node).find(([, e]) =>
      Object.keys(e.workers).includes("app/settings/tokens/page"),
    ) as [string, unknown];
    const call = (body: string, type = "text/plain;charset=UTF-8") =>
      request(
        "POST",
        "/settings/tokens",
        [
          `Next-Action: ${id}`,
          `Origin: ${hub.url}`,
          `Content-Type: ${type}`,
          `Content-Length: ${Buffer.byteLength(body)}`,
        ],
        body,
      );
    // …and path references (React's back-references) to nothing, or to the part they stand in.
    for (const body of [
      "garbage",
      '["$Q1"]',
      '["$@1"]',
      '[{"a":"$2"}]',
      '["$nabc"]',
      '["$zz"]',
      '[{"a":[1]},"$0:0:b"]',
      '["$0"]',
      '["$Q1:k"]',
    ])
      expectEnvelope(await call(body), 400, "validation_error");
    const part = (name: string, value: string) =>
      `--b\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const multipart = "multipart/form-data; boundary=b";
    expectEnvelope(await call(`${part("0", '["$@1"]')}--b--\r\n`, multipart), 400, "validation_error");
    expectEnvelope(await call(`${part("1", "[]")}--b--\r\n`, multipart), 400, "validation_error");
    // A part named before it is written: React's decoder calls it an invalid forward reference.
    expectEnvelope(await call(`${part("0", '["$1"]')}${part("1", "[]")}--b--\r\n`, multipart), 400, "validation_error");
    // A part of the wrong shape for its kind, and a kind no action takes.
    expectEnvelope(await call(`${part("1", "0")}${part("0", '["$Q1"]')}--b--\r\n`, multipart), 400, "validation_error");
    expectEnvelope(
      await call(`${part("1", "[]")}${part("0", '["$F1"]')}--b--\r\n`, multipart),
      400,
      "validation_error",
    );
    expectEnvelope(await call(`${"[".repeat(5000)}${"]".repeat(5000)}`), 400, "validation_error");
    // Not an argument list (Next spreads the root into the call).
    expectEnvelope(await call("0"), 400, "validation_error");
    // Well-formed bodies (no references, or references to parts that are there) reach the action.
    for (const [body, type] of [
      ['[null,"$D2026-12-05T00:00:00Z","$undefined","$$x"]', undefined],
      ['[{"list":["a"]},"$0:0:list"]', undefined],
      [`${part("1", "[]")}${part("0", '[null,"$Q1"]')}--b--\r\n`, multipart],
    ] as Array<[string, string | undefined]>) {
      const res = await call(body, type);
      expect(envelopeProblem(res), body).not.toBeNull(); // not answered by the guard
    }
  });
});

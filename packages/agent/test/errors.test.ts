/**
 * The §8.5 unknown-code fallback (a client MUST): the pure table in packages/protocol/src/errors.ts, and the
 * SDK's typed errors over real HTTP from a tiny server answering codes the SDK does not know, and
 * bodies that are not the §8.5 envelope at all.
 */
// covers: packages/agent/src/errors.ts, packages/protocol/src/errors.ts
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseErrorCode, ERROR_STATUS, effectiveErrorCode, type ErrorTouchpoint } from "@ma2h/protocol/errors";
import {
  AlreadyTerminalError,
  GoneError,
  IdempotencyConflictError,
  InvalidFieldError,
  Ma2hClient,
  NotAcknowledgeableError,
  NotAuthorizedError,
  UnauthenticatedError,
  ValidationError,
} from "../src";

describe("baseErrorCode / effectiveErrorCode (§8.5)", () => {
  it("reads an unknown code as the touchpoint's base code of its status", () => {
    const cases: [number, ErrorTouchpoint, string | null][] = [
      [400, "submit", "validation_error"],
      [401, "pull", "unauthenticated"],
      [403, "submit", "agent_id_mismatch"],
      [403, "resolve", "not_authorized"],
      [404, "cancel", "not_found"],
      [409, "submit", "idempotency_conflict"],
      [409, "cancel", "already_terminal"],
      [409, "resolve", "already_terminal"],
      [409, "ack", "not_acknowledgeable"],
      [410, "pull", "gone"],
      [410, "submit", "destination_gone"],
      [422, "submit", "invalid_field"],
      [429, "inbox", "rate_limited"],
      [503, "pull", "unavailable"],
      [502, "pull", "internal_error"],
      [418, "pull", null],
    ];
    for (const [status, touchpoint, base] of cases) {
      expect([status, touchpoint, baseErrorCode(status, touchpoint)]).toEqual([status, touchpoint, base]);
      expect(effectiveErrorCode(status, "some_future_refinement", touchpoint)).toBe(base);
    }
  });

  it("keeps a known code only at its own status", () => {
    for (const [code, status] of Object.entries(ERROR_STATUS))
      expect(effectiveErrorCode(status, code, "pull")).toBe(code);
    expect(effectiveErrorCode(409, "gone", "submit")).toBe("idempotency_conflict"); // known code, wrong class
    expect(effectiveErrorCode(422, "unknown_destination", "submit")).toBe("unknown_destination");
    expect(effectiveErrorCode(422, 42, "submit")).toBe("invalid_field");
  });
});

describe("typed errors over HTTP from codes the SDK does not know", () => {
  let server: Server;
  let url = "";
  const answers = new Map<string, { status: number; body: string }>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      const key = `${req.method} ${req.url?.split("?")[0]}`;
      const a = answers.get(key) ?? { status: 404, body: '{"error":{"code":"not_found","message":"no"}}' };
      res.writeHead(a.status, { "content-type": "application/json" });
      res.end(a.body);
    });
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    const addr = server.address();
    url = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
  });
  afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

  const unknown = (code: string) => JSON.stringify({ error: { code, message: "a refinement from the future" } });
  const sdk = () => new Ma2hClient({ url, apiKey: "k", agentId: "a/b", retry: { maxAttempts: 1 } });

  it("an unknown 410 at GET /v1/messages/{id} is gone; 409s by touchpoint; 403 at resolve", async () => {
    answers.set("GET /v1/messages/msg_1", { status: 410, body: unknown("message_shredded_by_policy") });
    const gone = await sdk()
      .messages.get("msg_1")
      .catch((e) => e);
    expect(gone).toBeInstanceOf(GoneError);
    expect([gone.status, gone.code, gone.receivedCode]).toEqual([410, "gone", "message_shredded_by_policy"]);

    answers.set("POST /v1/messages/msg_1/cancel", {
      status: 409,
      body: JSON.stringify({
        ...JSON.parse(unknown("frozen")),
        id: "msg_1",
        status: "answered",
        resolution: "answered",
      }),
    });
    const cancel = await sdk()
      .messages.cancel("msg_1")
      .catch((e) => e);
    expect(cancel).toBeInstanceOf(AlreadyTerminalError);
    expect(cancel.existing).toEqual({ id: "msg_1", status: "answered", resolution: "answered" });

    answers.set("POST /v1/messages/msg_1/ack", { status: 409, body: unknown("not_yet") });
    await expect(sdk().messages.ack("msg_1")).rejects.toBeInstanceOf(NotAcknowledgeableError);

    answers.set("POST /v1/messages/msg_1/resolve", { status: 403, body: unknown("resolver_on_leave") });
    await expect(sdk().messages.resolve("msg_1", { resolution: "declined" })).rejects.toBeInstanceOf(
      NotAuthorizedError,
    );
  });

  it("bodies that are not the §8.5 envelope are typed by status", async () => {
    answers.set("GET /v1/messages/msg_2", { status: 401, body: "<html>login</html>" });
    const e401 = await sdk()
      .messages.get("msg_2")
      .catch((e) => e);
    expect(e401).toBeInstanceOf(UnauthenticatedError);
    expect(e401.receivedCode).toBeNull();
    answers.set("GET /v1/messages/msg_3", { status: 422, body: '{"detail":"nope"}' });
    await expect(sdk().messages.get("msg_3")).rejects.toBeInstanceOf(InvalidFieldError);
    answers.set("GET /v1/messages/msg_4", { status: 400, body: "" });
    await expect(sdk().messages.get("msg_4")).rejects.toBeInstanceOf(ValidationError);
  });

  it("an unknown 409 at submit is an idempotency conflict", async () => {
    answers.set("GET /.well-known/ma2h", { status: 200, body: '{"ma2h_version":"0.6"}' });
    answers.set("POST /v1/messages", { status: 409, body: unknown("payload_drifted") });
    await expect(sdk().messages.notify({ title: "x" })).rejects.toBeInstanceOf(IdempotencyConflictError);
  });
});

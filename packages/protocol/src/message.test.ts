import { describe, expect, it } from "vitest";
import { HubError } from "./errors";
import { parseMessage } from "./message";

const base = {
  ma2h_version: "0.5",
  type: "notify",
  created_at: "2026-06-04T13:00:00Z",
  agent: { id: "bot", run_id: "r", runtime: "cli" },
  title: "t",
};
const askBody = {
  ...base,
  type: "ask",
  idempotency_key: "k",
  request: { mode: "select", options: [{ value: "a", label: "A" }] },
};

function failure(input: unknown): HubError {
  try {
    parseMessage(input);
  } catch (err) {
    if (err instanceof HubError) return err;
    throw err;
  }
  throw new Error("expected parseMessage to fail");
}

describe("parseMessage", () => {
  it("preserves unknown fields at every level (§10 robustness)", () => {
    const m = parseMessage({
      ...askBody,
      x_top: { a: 1 },
      agent: { ...askBody.agent, x_agent: true },
      request: { ...askBody.request, x_req: [1] },
    });
    expect(m).toMatchObject({ x_top: { a: 1 }, agent: { x_agent: true }, request: { x_req: [1] } });
  });

  it("does not add defaults: the envelope is stored as sent", () => {
    const m = parseMessage(base);
    expect("priority" in m).toBe(false);
    expect(m).toEqual(base);
  });

  it("narrows on type", () => {
    const m = parseMessage(askBody);
    expect(m.type === "ask" ? m.request.options?.[0]?.value : null).toBe("a");
  });

  it.each([
    ["a non-object", [], "(body): must be an object"],
    ["missing title", { ...base, title: undefined }, "title: is required"],
    ["long title", { ...base, title: "x".repeat(201) }, "title: must be 1–200 characters"],
    ["unknown type", { ...base, type: "directive" }, 'type: must be one of "notify", "ask", "task"'],
    ["missing type", { ...base, type: undefined }, 'type: must be one of "notify", "ask", "task"'],
    [
      "bad runtime",
      { ...base, agent: { ...base.agent, runtime: "lambda" } },
      'agent.runtime: must be one of "github-actions", "cli", "cloud", "desktop", "openclaw", "other"',
    ],
    ["request on notify", { ...base, request: { mode: "confirm" } }, "request: not allowed on a notify (§4)"],
    ["ask without key", { ...askBody, idempotency_key: undefined }, "idempotency_key: is required"],
    [
      "select without options",
      { ...askBody, request: { mode: "select" } },
      "request.options: is required for mode select",
    ],
    [
      "hmac without secret",
      { ...askBody, request: { mode: "confirm", callback: { mode: "pull", auth: { scheme: "hmac" } } } },
      "request.callback.auth.secret_ref: is required for scheme hmac",
    ],
    [
      "push without url",
      { ...askBody, request: { mode: "confirm", callback: { mode: "push" } } },
      "request.callback.url: is required for mode push",
    ],
    ["bad created_at", { ...base, created_at: "2026-02-30T00:00:00Z" }, "created_at: must be an RFC 3339 date-time"],
    [
      "bad file uri",
      { ...base, context: [{ kind: "file", file: { uri: "diff.patch" } }] },
      "context[0].file.uri: must be an absolute URI",
    ],
    ["to: human", { ...base, to: "human:alice" }, "to: must match ^agent:[^#]+(#sess_.+)?$"],
    [
      "to on 0.4",
      { ...base, ma2h_version: "0.4", to: "agent:x" },
      "ma2h_version: must be ≥ 0.5 when to is present (§4)",
    ],
    [
      "session on 0.4",
      { ...base, ma2h_version: "0.4", agent: { ...base.agent, session: "sess_1" } },
      "ma2h_version: must be ≥ 0.5 when agent.session is present (§4)",
    ],
    [
      "hash sender",
      { ...base, to: "agent:x", agent: { ...base.agent, id: "a#b" } },
      "agent.id: must not contain '#' when to is present (§4)",
    ],
    [
      "hash resolver on 0.5",
      { ...askBody, request: { mode: "confirm", allowed_resolvers: ["agent:a#b"] } },
      "request.allowed_resolvers[0]: agent entries must be agent:<id> or agent:<id>#sess_… on ≥ 0.5 (§9.1)",
    ],
    ["non-canonical version", { ...base, ma2h_version: "0.03" }, "ma2h_version: must be a canonical 0.x version (§10)"],
    [
      "bad default type",
      { ...askBody, request: { ...askBody.request, default_on_expire: 3 } },
      "request.default_on_expire: must be a string, an object or null",
    ],
  ])("%s → 400 validation_error naming the field", (_name, input, message) => {
    const err = failure(input);
    expect(err.code).toBe("validation_error");
    expect(err.status).toBe(400);
    expect(err.message).toBe(message);
  });

  it("keeps the legacy resolver pattern below 0.5", () => {
    expect(() =>
      parseMessage({ ...askBody, ma2h_version: "0.4", request: { mode: "confirm", allowed_resolvers: ["agent:a#b"] } }),
    ).not.toThrow();
  });
});

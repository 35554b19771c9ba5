import { describe, expect, it } from "vitest";
import { HubError } from "./errors";
import { parseMessage, type Message } from "./message";
import {
  checkResolution,
  checkSubmitSemantics,
  CONFIRM_OPTIONS,
  effectiveOptions,
  isTerminal,
  parseResolveRequest,
  RESOLUTIONS_BY_TYPE,
  TERMINAL_STATUSES,
} from "./rules";

const NOW = new Date("2026-06-04T12:00:00.000Z");
const base = {
  ma2h_version: "0.5",
  created_at: "2026-06-04T11:00:00Z",
  agent: { id: "bot", run_id: "r", runtime: "cli" },
  title: "t",
};
const ask = (request: Record<string, unknown>, extra: Record<string, unknown> = {}): Message =>
  parseMessage({ ...base, type: "ask", idempotency_key: "k", request, ...extra });
const task = (extra: Record<string, unknown> = {}): Message =>
  parseMessage({
    ...base,
    type: "task",
    idempotency_key: "k",
    action: { instructions: "do", checklist: [{ text: "a" }] },
    ...extra,
  });
const select = (extra: Record<string, unknown> = {}) =>
  ask({
    mode: "select",
    options: [
      { value: "ship", label: "Ship" },
      { value: "hold", label: "Hold" },
    ],
    ...extra,
  });
const input = (extra: Record<string, unknown> = {}) =>
  ask({
    mode: "input",
    schema: {
      type: "object",
      properties: { reason: { type: "string" }, n: { type: "integer" } },
      required: ["reason"],
    },
    ...extra,
  });

function code(fn: () => void): string | null {
  try {
    fn();
    return null;
  } catch (err) {
    if (err instanceof HubError) return err.code;
    throw err;
  }
}
const submit = (m: Message) => code(() => checkSubmitSemantics(m, NOW));
const resolve = (m: Message, body: unknown) => code(() => checkResolution(m, parseResolveRequest(body)));

describe("§5.2 confirm synthesis", () => {
  it("confirm without options → exactly approve / deny", () => {
    const m = ask({ mode: "confirm" });
    if (m.type !== "ask") throw new Error("ask expected");
    expect(effectiveOptions(m.request)).toEqual([
      { value: "approve", label: "Approve" },
      { value: "deny", label: "Deny" },
    ]);
    expect(CONFIRM_OPTIONS).toHaveLength(2);
    expect(Object.isFrozen(CONFIRM_OPTIONS)).toBe(true);
  });

  it("supplied options win; input has none", () => {
    const confirm = ask({
      mode: "confirm",
      options: [
        { value: "y", label: "Yes" },
        { value: "n", label: "No" },
      ],
    });
    if (confirm.type !== "ask") throw new Error("ask expected");
    expect(effectiveOptions(confirm.request).map((o) => o.value)).toEqual(["y", "n"]);
    const m = input();
    if (m.type !== "ask") throw new Error("ask expected");
    expect(effectiveOptions(m.request)).toEqual([]);
  });
});

describe("checkSubmitSemantics", () => {
  it("expires_at must be strictly after now (§4, §8.5)", () => {
    expect(submit(select({}))).toBeNull();
    expect(
      code(() => checkSubmitSemantics(ask({ mode: "confirm" }, { expires_at: "2026-06-04T12:00:00Z" }), NOW)),
    ).toBe("invalid_field");
    expect(
      code(() => checkSubmitSemantics(ask({ mode: "confirm" }, { expires_at: "2026-06-04T11:59:59Z" }), NOW)),
    ).toBe("invalid_field");
    expect(
      code(() => checkSubmitSemantics(ask({ mode: "confirm" }, { expires_at: "2026-06-04T12:00:00.001Z" }), NOW)),
    ).toBeNull();
    expect(
      code(() => checkSubmitSemantics(ask({ mode: "confirm" }, { expires_at: "2026-06-04T13:59:00+02:00" }), NOW)),
    ).toBe("invalid_field");
    expect(code(() => checkSubmitSemantics(task({ expires_at: "2026-06-04T12:00:00Z" }), NOW))).toBe("invalid_field");
  });

  it("input asks need a flat schema", () => {
    expect(submit(input())).toBeNull();
    expect(submit(ask({ mode: "input", schema: { type: "object", properties: { a: { type: "object" } } } }))).toBe(
      "invalid_field",
    );
  });

  it.each([
    ["select member", select({ default_on_expire: "hold" }), null],
    ["select null", select({ default_on_expire: null }), null],
    ["select non-member", select({ default_on_expire: "abort" }), "invalid_field"],
    ["select object", select({ default_on_expire: { v: "hold" } }), "invalid_field"],
    ["confirm synthesized member", ask({ mode: "confirm", default_on_expire: "deny" }), null],
    ["confirm non-member", ask({ mode: "confirm", default_on_expire: "no" }), "invalid_field"],
    ["input valid object", input({ default_on_expire: { reason: "timeout" } }), null],
    ["input null", input({ default_on_expire: null }), null],
    ["input invalid object", input({ default_on_expire: { reason: 1 } }), "invalid_field"],
    ["input missing required", input({ default_on_expire: { n: 1 } }), "invalid_field"],
    ["input string", input({ default_on_expire: "timeout" }), "invalid_field"],
  ])("default_on_expire: %s", (_name, m, want) => {
    expect(submit(m)).toBe(want);
  });
});

describe("checkResolution (§8.8)", () => {
  it("fits the resolution to the verb", () => {
    expect(resolve(select(), { resolution: "answered", value: "ship" })).toBeNull();
    expect(resolve(select(), { resolution: "declined" })).toBeNull();
    expect(resolve(select(), { resolution: "completed" })).toBe("invalid_field");
    expect(resolve(select(), { resolution: "dismissed" })).toBe("invalid_field");
    expect(resolve(task(), { resolution: "completed", checklist: [{ text: "a", done: true }] })).toBeNull();
    expect(resolve(task(), { resolution: "dismissed", comment: "no" })).toBeNull();
    expect(resolve(task(), { resolution: "answered", value: "x" })).toBe("invalid_field");
    expect(resolve(parseMessage({ ...base, type: "notify" }), { resolution: "declined" })).toBe("invalid_field");
  });

  it("value iff answered; no checklist on an ask (schema → invalid_field)", () => {
    expect(resolve(select(), { resolution: "answered" })).toBe("invalid_field");
    expect(resolve(select(), { resolution: "declined", value: "ship" })).toBe("invalid_field");
    expect(resolve(select(), { resolution: "answered", value: "ship", checklist: [{ text: "a", done: true }] })).toBe(
      "invalid_field",
    );
    expect(resolve(select(), { resolution: "cancelled" })).toBe("invalid_field");
    expect(resolve(select(), { resolution: "expired" })).toBe("invalid_field");
    // The same rules hold when a caller hands checkResolution an unparsed-but-typed body.
    expect(code(() => checkResolution(select(), { resolution: "declined", value: "ship" }))).toBe("invalid_field");
    expect(code(() => checkResolution(select(), { resolution: "declined", checklist: [] }))).toBe("invalid_field");
  });

  it("checks the answered value against the request", () => {
    expect(resolve(select(), { resolution: "answered", value: "nope" })).toBe("invalid_field");
    expect(resolve(select(), { resolution: "answered", value: { v: "ship" } })).toBe("invalid_field");
    expect(resolve(ask({ mode: "confirm" }), { resolution: "answered", value: "approve" })).toBeNull();
    expect(resolve(ask({ mode: "confirm" }), { resolution: "answered", value: "yes" })).toBe("invalid_field");
    expect(resolve(input(), { resolution: "answered", value: { reason: "ok", n: 2 } })).toBeNull();
    expect(resolve(input(), { resolution: "answered", value: { n: 2 } })).toBe("invalid_field");
    expect(resolve(input(), { resolution: "answered", value: "ok" })).toBe("invalid_field");
  });

  it("honours permissions (§5.2)", () => {
    const noRespond = select({ permissions: { allow_respond: false } });
    expect(resolve(noRespond, { resolution: "answered", value: "ship" })).toBe("invalid_field");
    expect(resolve(noRespond, { resolution: "declined" })).toBeNull();
    const noIgnore = select({ permissions: { allow_ignore: false } });
    expect(resolve(noIgnore, { resolution: "declined" })).toBe("invalid_field");
    expect(resolve(noIgnore, { resolution: "answered", value: "hold" })).toBeNull();
  });

  it("parseResolveRequest: schema failures are 422, non-objects 400", () => {
    expect(code(() => parseResolveRequest({ resolution: "answered" }))).toBe("invalid_field");
    expect(code(() => parseResolveRequest({ resolution: "ignored" }))).toBe("invalid_field");
    expect(code(() => parseResolveRequest([]))).toBe("validation_error");
    expect(code(() => parseResolveRequest("answered"))).toBe("validation_error");
    expect(parseResolveRequest({ resolution: "declined", x_extra: 1 })).toEqual({ resolution: "declined", x_extra: 1 });
    expect(() => parseResolveRequest({ resolution: "declined", value: "x" })).toThrow(
      "value: not allowed when resolution is declined (§8.8)",
    );
  });
});

describe("lifecycle tables (§6, §7)", () => {
  it("has one canonical resolution list per verb", () => {
    expect(RESOLUTIONS_BY_TYPE).toEqual({
      ask: ["answered", "declined", "cancelled", "expired"],
      task: ["completed", "dismissed", "expired"],
    });
    expect([...TERMINAL_STATUSES].sort()).toEqual([
      "answered",
      "cancelled",
      "completed",
      "declined",
      "dismissed",
      "expired",
    ]);
    expect(isTerminal("open")).toBe(false);
    expect(isTerminal("expired")).toBe(true);
    expect(isTerminal("ignored")).toBe(false);
  });
});

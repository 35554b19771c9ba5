import { describe, expect, it } from "vitest";
import { HubError } from "./errors";
import { parseMessage } from "./message";
import { assertPushParity, assertSupportedMajor, HUB_VERSION, isCanonicalVersion, parseVersion } from "./versions";

const notify = (ma2h_version: unknown) => ({
  ma2h_version,
  type: "notify",
  created_at: "2026-06-04T13:00:00Z",
  agent: { id: "deploybot/dev-team", run_id: "run_1", runtime: "cli" },
  title: "hello",
});
const ask = (ma2h_version: string, callback: unknown) => ({
  ...notify(ma2h_version),
  type: "ask",
  idempotency_key: "k1",
  request: { mode: "confirm", callback },
});

function codeOf(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (err) {
    if (err instanceof HubError) return err.code;
    throw err;
  }
}

/** The submit order for versions (§10; requirements §6.1): major gate, then schema, then parity. */
function submitCode(body: unknown): string | null {
  return codeOf(() => {
    assertSupportedMajor(body);
    assertPushParity(parseMessage(body));
  });
}

describe("§10 version handling", () => {
  it.each(["1.0", "2.5", "1", "10.0", "1.0.0"])("major of %s → version_not_supported", (v) => {
    expect(submitCode(notify(v))).toBe("version_not_supported");
  });

  it.each(["0.03", "0.5.1", "0.", "00.5", "abc", "", ".5", " 0.5"])("non-canonical %j → validation_error", (v) => {
    expect(codeOf(() => assertSupportedMajor(notify(v)))).toBeNull();
    expect(submitCode(notify(v))).toBe("validation_error");
  });

  it("leaves a missing or non-string version to the schema", () => {
    expect(codeOf(() => assertSupportedMajor(notify(5)))).toBeNull();
    expect(codeOf(() => assertSupportedMajor({}))).toBeNull();
    expect(codeOf(() => assertSupportedMajor(null))).toBeNull();
    expect(codeOf(() => assertSupportedMajor([{ ma2h_version: "1.0" }]))).toBeNull();
    expect(submitCode(notify(5))).toBe("validation_error");
  });

  it.each(["0.0", "0.2", "0.3", "0.4", "0.5", "0.9", "0.10"])("accepts %s", (v) => {
    expect(submitCode(notify(v))).toBeNull();
  });

  it("push at a minor below 3 → version_not_supported; pull there is fine (§10 push parity)", () => {
    const push = { mode: "push", url: "https://agent.example/cb" };
    expect(submitCode(ask("0.2", push))).toBe("version_not_supported");
    expect(submitCode(ask("0.0", push))).toBe("version_not_supported");
    expect(submitCode(ask("0.2", { mode: "pull" }))).toBeNull();
    expect(submitCode(ask("0.2", undefined))).toBeNull();
    expect(submitCode(ask("0.3", push))).toBeNull();
    expect(submitCode(ask("0.5", push))).toBeNull();
    const task = {
      ...notify("0.1"),
      type: "task",
      idempotency_key: "k",
      action: { instructions: "x", callback: push },
    };
    expect(submitCode(task)).toBe("version_not_supported");
  });

  it("parseVersion / isCanonicalVersion", () => {
    expect(parseVersion("0.5")).toEqual({ major: 0, minor: 5 });
    expect(parseVersion("1.12")).toEqual({ major: 1, minor: 12 });
    expect(parseVersion("0.03")).toBeNull();
    expect(parseVersion("0.5.1")).toBeNull();
    expect(parseVersion(0.5)).toBeNull();
    expect(isCanonicalVersion("0.0")).toBe(true);
    expect(isCanonicalVersion("0.10")).toBe(true);
    expect(isCanonicalVersion("0.03")).toBe(false);
    expect(isCanonicalVersion("1.0")).toBe(false);
    expect(isCanonicalVersion(HUB_VERSION)).toBe(true);
  });
});

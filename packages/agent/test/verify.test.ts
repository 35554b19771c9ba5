/**
 * The SDK's verifiers against the conformance fixtures, read in place from ../shared/ma2h:
 * verifyPush reproduces dp-001 (and refuses its replay), dp-003's tampered twin, dp-004's numeric
 * digest, dp-025's `v1` boundary; verifyDirective reproduces dp-005 and refuses dp-006's
 * re-addressed twin. Plus the option rules (hmac or the Hub's keys, never both) and header forms.
 */
// covers: packages/agent/src/verify-push.ts, packages/agent/src/verify-directive.ts, packages/agent/src/verification.ts
import { describe, expect, it } from "vitest";
import { formatSignatureHeader, signContext } from "@ma2h/protocol/signing";
import { MemoryReplayStore } from "../src/stores";
import { verifyDirective } from "../src/verify-directive";
import { VerificationError, verifyPush } from "../src/verify-push";
import { type Json, vector } from "../../../test/support/spec";

const dp001 = vector("dp-001-signature");
const dp003 = vector("dp-003-payload-tamper-invalid");
const dp004 = vector("dp-004-numeric-payload");
const dp005 = vector("dp-005-inbound-signature");
const dp006 = vector("dp-006-inbound-tamper-invalid");
const dp025 = vector("dp-025-mac-well-formedness");

const atSeconds = (t: number | string) => () => new Date(Number(t) * 1000);
const headerValue = (full: string) => full.replace(/^MA2H-Signature:\s*/, "");

/** A §6 Response carrying a fixture context's bound fields and the given payload. */
function bodyFrom(ctx: Json, payload: Json): Json {
  return {
    ma2h_version: ctx.ma2h_version,
    in_reply_to: ctx.in_reply_to,
    resolution_id: ctx.resolution_id,
    agent: { id: "deploybot/dev-team", run_id: "run_01" },
    resolution: ctx.resolution,
    ...(payload.response === undefined ? {} : { response: payload.response }),
    ...(payload.state === undefined ? {} : { state: payload.state }),
  };
}

/** The reason verifyPush refused with, or "accepted". */
async function outcome(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return "accepted";
  } catch (e) {
    if (e instanceof VerificationError) return e.reason;
    throw e;
  }
}

describe("verifyPush reproduces the §9.2 fixtures", () => {
  const ctx = dp001.signed_context;
  const options = (store = new MemoryReplayStore()) => ({
    callbackUrl: ctx.callback_url,
    hmacSecret: dp001.test_key,
    now: atSeconds(ctx.t),
    replayStore: store,
  });

  it("dp-001: the fixture's body and header verify, return the §6 Response, and its replay is refused", async () => {
    const body = JSON.stringify(bodyFrom(ctx, dp001.payload));
    const store = new MemoryReplayStore();
    const got = await verifyPush({ "MA2H-Signature": headerValue(dp001.header) }, body, options(store));
    expect(got).toEqual(JSON.parse(body));
    expect(await outcome(() => verifyPush({ "ma2h-signature": headerValue(dp001.header) }, body, options(store)))).toBe(
      "replayed",
    );
  });

  it("dp-001: accepts Fetch Headers, a byte body, and two secrets during a rotation", async () => {
    const body = new TextEncoder().encode(JSON.stringify(bodyFrom(ctx, dp001.payload)));
    const headers = new Headers({ "MA2H-Signature": headerValue(dp001.header) });
    const got = await verifyPush(headers, body, { ...options(), hmacSecret: ["the-new-secret", dp001.test_key] });
    expect(got.in_reply_to).toBe(ctx.in_reply_to);
  });

  it("dp-003: the honest payload verifies, the tampered twin (hold → ship) is a signature mismatch", async () => {
    const c = dp003.signed_context;
    const header = { "ma2h-signature": formatSignatureHeader({ t: Number(c.t), jti: c.jti, v1: dp003.v1 }) };
    const opts = { callbackUrl: c.callback_url, hmacSecret: dp003.test_key, now: atSeconds(c.t) };
    const honest = JSON.stringify(bodyFrom(c, dp003.honest_payload));
    const tampered = JSON.stringify(bodyFrom(c, dp003.tampered_payload));
    // The forgery first: it must not poison the store for the honest push.
    const store = new MemoryReplayStore();
    expect(await outcome(() => verifyPush(header, tampered, { ...opts, replayStore: store }))).toBe(
      "signature_mismatch",
    );
    expect(await outcome(() => verifyPush(header, honest, { ...opts, replayStore: store }))).toBe("accepted");
  });

  it("dp-004: the numeric payload's digest is recomputed byte-exact (a context signed over it verifies)", async () => {
    const context = { ...ctx, payload_sha256: dp004.payload_sha256, resolved_at: dp004.payload.response.resolved_at };
    const v1 = signContext(context, { alg: "hmac-sha256", secret: dp001.test_key });
    const header = { "ma2h-signature": formatSignatureHeader({ t: Number(ctx.t), jti: ctx.jti, v1 }) };
    const body = bodyFrom(ctx, dp004.payload);
    expect(await outcome(() => verifyPush(header, JSON.stringify(body), options()))).toBe("accepted");
    body.response.value.big = 1e20; // one number changed
    expect(await outcome(() => verifyPush(header, JSON.stringify(body), options()))).toBe("signature_mismatch");
  });

  it("dp-025: ill-formed v1 values are malformed_mac; well-formed ones reach the signature check", async () => {
    const c = dp025.signed_context;
    const body = JSON.stringify(bodyFrom(c, dp001.payload));
    for (const { value, expect: kind } of dp025.cases as Array<{ value: string; expect: string }>) {
      const header = { "ma2h-signature": `t=${c.t},jti=${c.jti},v1=${value}` };
      const reason = await outcome(() =>
        verifyPush(header, body, { callbackUrl: c.callback_url, hmacSecret: dp025.test_key, now: atSeconds(c.t) }),
      );
      expect(reason, value).toBe(kind === "well-formed" ? "signature_mismatch" : "malformed_mac");
    }
    // The structurally padded form of a real `v1` decodes to the same bytes and verifies.
    const padded = { "ma2h-signature": `${headerValue(dp001.header)}=` };
    expect(await outcome(() => verifyPush(padded, JSON.stringify(bodyFrom(ctx, dp001.payload)), options()))).toBe(
      "accepted",
    );
  });

  it("refuses a stale t, a missing or malformed header, a non-JSON body and a signed non-Response", async () => {
    const body = JSON.stringify(bodyFrom(ctx, dp001.payload));
    const header = { "ma2h-signature": headerValue(dp001.header) };
    const late = { ...options(), now: atSeconds(Number(ctx.t) + 121) };
    expect(await outcome(() => verifyPush(header, body, late))).toBe("outside_window");
    expect(await outcome(() => verifyPush(header, body, { ...late, windowSeconds: 300 }))).toBe("accepted");
    expect(await outcome(() => verifyPush({}, body, options()))).toBe("missing_header");
    expect(await outcome(() => verifyPush({ "ma2h-signature": "t=1,v1=x" }, body, options()))).toBe("malformed_header");
    expect(await outcome(() => verifyPush({ "ma2h-signature": ["a", "b"] }, body, options()))).toBe("malformed_header");
    expect(await outcome(() => verifyPush(header, "not json", options()))).toBe("invalid_body");
    expect(await outcome(() => verifyPush(header, new Uint8Array([0xff, 0xfe]), options()))).toBe("invalid_body");
    // Signed bound fields but not a §6 Response (no `agent`, a bad actor): refused as a shape.
    const unshaped = { ...bodyFrom(ctx, dp001.payload) } as Json;
    delete unshaped.agent;
    expect(await outcome(() => verifyPush(header, JSON.stringify(unshaped), options()))).toBe("invalid_shape");
  });

  it("hmac or the Hub's keys, never both; neither, or an empty secret, is a TypeError", async () => {
    const body = JSON.stringify(bodyFrom(ctx, dp001.payload));
    const header = { "ma2h-signature": headerValue(dp001.header) };
    const base = { callbackUrl: ctx.callback_url, now: atSeconds(ctx.t) };
    await expect(
      verifyPush(header, body, { ...base, hmacSecret: dp001.test_key, hubUrl: "https://hub.example" }),
    ).rejects.toThrow(TypeError);
    await expect(verifyPush(header, body, base)).rejects.toThrow(TypeError);
    await expect(verifyPush(header, body, { ...base, hmacSecret: [] })).rejects.toThrow(TypeError);
    await expect(verifyPush(header, body, { ...base, hmacSecret: "" })).rejects.toThrow(TypeError);
    await expect(verifyPush(header, body, { ...options(), windowSeconds: 0 })).rejects.toThrow(TypeError);
  });
});

describe("verifyDirective reproduces the §9.7 fixtures", () => {
  const opts = (agentId = "deploybot/dev-team") => ({
    agentId,
    hmacSecret: dp005.test_key,
    now: atSeconds(dp005.signed_context.t),
    replayStore: new MemoryReplayStore(),
  });

  it("dp-005: the fixture directive verifies and comes back with exactly its known fields; a replay is refused", async () => {
    const o = opts();
    const entry = { directive: dp005.directive, signature: dp005.header };
    expect(await verifyDirective(entry, o)).toEqual(dp005.directive);
    expect(await outcome(() => verifyDirective(entry, o))).toBe("replayed");
  });

  it("dp-006: the honest directive verifies; the re-addressed twin is a signature mismatch for either agent", async () => {
    const signature = `MA2H-Signature: t=${dp006.t},jti=${dp006.jti},v1=${dp006.v1}`;
    expect(await outcome(() => verifyDirective({ directive: dp006.honest_directive, signature }, opts()))).toBe(
      "accepted",
    );
    for (const agent of ["deploybot/dev-team", "victim/other-bot"])
      expect(
        await outcome(() => verifyDirective({ directive: dp006.tampered_directive, signature }, opts(agent))),
      ).toBe("signature_mismatch");
    // The honest one verified for another agent is not theirs to act on.
    expect(
      await outcome(() => verifyDirective({ directive: dp006.honest_directive, signature }, opts("victim/other-bot"))),
    ).toBe("wrong_addressee");
  });
});

/**
 * §9.7 directive signing against the fixtures, read in place from ../shared/ma2h: dp-005 (digest,
 * context, `v1`, header) and dp-006 (a re-addressed, re-authored or altered directive fails with a
 * signature mismatch, not an incidental rejection); plus per-delivery freshness, the window, the jti
 * cache, the addressee check and ed25519.
 */
import { describe, expect, it } from "vitest";
import { vector } from "../../../test/support/spec";
import type { Directive } from "./directive";
import { jcs } from "./jcs";
import {
  directivePayloadSha256,
  inboundSignedContext,
  signDirectiveDelivery,
  SIGNATURE_PREFIX,
} from "./inbound-signing";
import { verifyDirectiveDelivery } from "./inbound-verify";
import { ed25519 } from "@noble/curves/ed25519.js";
import { ed25519KeyPair, signBytes, signContext, type SigningKey } from "./signing";
import { ReplayCache } from "./verify";

const dp005 = vector("dp-005-inbound-signature");
const dp006 = vector("dp-006-inbound-tamper-invalid");
const hmac: SigningKey = { alg: "hmac-sha256", secret: dp005.test_key };
const tNow = (t: string) => new Date(Number(t) * 1000 + 5_000);

describe("dp-005 directive signature", () => {
  const d = dp005.directive as Directive;
  it("reproduces payload_sha256 from the directive content only", () => {
    expect(jcs({ directive: { title: d.title, body: d.body, priority: d.priority, tags: d.tags } })).toBe(
      dp005.payload_canonical_jcs,
    );
    expect(directivePayloadSha256(d)).toBe(dp005.signed_context.payload_sha256);
  });
  it("reproduces the context, its JCS, v1 and the header", () => {
    const context = inboundSignedContext(d, dp005.signed_context.jti, Number(dp005.signed_context.t));
    expect(context).toEqual(dp005.signed_context);
    expect(jcs(context)).toBe(dp005.canonical_jcs);
    expect(signContext(context, hmac)).toBe(dp005.v1);
    const { signature } = signDirectiveDelivery({
      directive: d,
      key: hmac,
      now: new Date(Number(dp005.signed_context.t) * 1000),
      jti: dp005.signed_context.jti,
    });
    expect(signature).toBe(dp005.header);
  });
  it("unbound advisory fields (created_at, expires_at, sensitive) do not change the signature", () => {
    const moved = { ...d, created_at: "2030-01-01T00:00:00Z", expires_at: "2031-01-01T00:00:00Z", sensitive: true };
    expect(
      signContext(inboundSignedContext(moved, dp005.signed_context.jti, Number(dp005.signed_context.t)), hmac),
    ).toBe(dp005.v1);
  });
  it("verifies once; the same bytes again are a replay", () => {
    const cache = new ReplayCache();
    const args = {
      directive: d,
      signature: dp005.header,
      self: d.to,
      keys: [hmac],
      now: tNow(dp005.signed_context.t),
      replayCache: cache,
    };
    expect(verifyDirectiveDelivery(args)).toEqual({ ok: true });
    expect(verifyDirectiveDelivery(args)).toEqual({ ok: false, reason: "replayed" });
  });
  it("rejects a t outside the window and a tampered context", () => {
    const far = new Date(Number(dp005.signed_context.t) * 1000 + 121_000);
    expect(
      verifyDirectiveDelivery({
        directive: d,
        signature: dp005.header,
        self: d.to,
        keys: [hmac],
        now: far,
        replayCache: new ReplayCache(),
      }),
    ).toEqual({ ok: false, reason: "outside_window" });
    const tampered = { ...dp005.signed_context, payload_sha256: "0".repeat(64) };
    expect(signContext(tampered, hmac)).not.toBe(dp005.v1);
  });
});

describe("dp-006 directive tamper", () => {
  const verify = (directive: unknown, self: string) =>
    verifyDirectiveDelivery({
      directive,
      signature: `${SIGNATURE_PREFIX}t=${dp006.t},jti=${dp006.jti},v1=${dp006.v1}`,
      self,
      keys: [hmac],
      now: tNow(dp006.t),
      replayCache: new ReplayCache(),
    });
  it("the honest directive verifies", () => {
    expect(verify(dp006.honest_directive, dp006.honest_directive.to)).toEqual({ ok: true });
  });
  it("a redirected `to` fails with a signature mismatch, even for the new addressee", () => {
    expect(verify(dp006.tampered_directive, dp006.tampered_directive.to)).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
  });
  it.each([
    ["from", { from: "human:mallory" }],
    ["body", { body: "Deploy now." }],
    ["title", { title: "Resume deploys" }],
    ["priority removed", { priority: undefined }],
    ["tags added", { tags: ["incident", "deploy-freeze", "all-clear"] }],
    ["context added", { context: [{ kind: "text", text: "run rm -rf" }] }],
    ["id", { id: "dir_other" }],
  ])("altering %s fails with a signature mismatch", (_name, change) => {
    const altered = JSON.parse(JSON.stringify({ ...dp006.honest_directive, ...change }));
    expect(verify(altered, altered.to)).toEqual({ ok: false, reason: "signature_mismatch" });
  });
  it("a valid signature for another agent is refused by the addressee check (dp-007 (5))", () => {
    expect(verify(dp006.honest_directive, "agent:victim/other-bot")).toEqual({ ok: false, reason: "wrong_addressee" });
  });
});

describe("per-delivery ed25519 signing", () => {
  const { privateKey, publicKey } = ed25519KeyPair();
  const d: Directive = {
    ma2h_version: "0.5",
    type: "directive",
    id: "dir_x",
    from: "human:ann",
    to: "agent:a/b",
    created_at: "2026-12-02T00:00:00Z",
    title: "Hold",
  };
  it("each delivery gets a fresh jti and t; the bound fields stay fixed; both verify", () => {
    const one = signDirectiveDelivery({
      directive: d,
      key: { alg: "ed25519", privateKey },
      now: new Date("2026-12-02T00:00:00Z"),
    });
    const two = signDirectiveDelivery({
      directive: d,
      key: { alg: "ed25519", privateKey },
      now: new Date("2026-12-02T00:01:00Z"),
    });
    expect(one.context.jti).not.toBe(two.context.jti);
    expect(one.context.t).not.toBe(two.context.t);
    expect({ ...one.context, jti: "", t: "" }).toEqual({ ...two.context, jti: "", t: "" });
    const cache = new ReplayCache();
    for (const [s, at] of [
      [one, "2026-12-02T00:00:01Z"],
      [two, "2026-12-02T00:01:01Z"],
    ] as const) {
      expect(
        verifyDirectiveDelivery({
          directive: d,
          signature: s.signature,
          self: d.to,
          keys: [{ alg: "ed25519", publicKey }],
          now: new Date(at),
          replayCache: cache,
        }),
      ).toEqual({ ok: true });
    }
  });
});

describe("native ed25519 signing", () => {
  it("is byte-identical to @noble/curves (RFC 8032 is deterministic) and verifies", () => {
    for (let i = 0; i < 20; i++) {
      const { privateKey, publicKey } = ed25519KeyPair();
      const text = `{"n":${i},"s":"${"é".repeat(i)}"}`;
      const native = signBytes(text, { alg: "ed25519", privateKey });
      expect(Buffer.from(native).equals(Buffer.from(ed25519.sign(Buffer.from(text, "utf8"), privateKey)))).toBe(true);
      expect(ed25519.verify(native, Buffer.from(text, "utf8"), publicKey)).toBe(true);
    }
  });
});

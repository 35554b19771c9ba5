/**
 * §14.4 pushed-ack signer and verifier against the fixtures, read in place from ../shared/ma2h:
 * dp-008 (ack_sha256 over the fixed five-key wrapper, context, canonical string, `v1`, header) and
 * dp-009 (a tampered `note` or `by` fails as a signature mismatch); plus null optionals, ed25519,
 * the window and the replay cache.
 */
import { describe, expect, it } from "vitest";
import { type Json, vector } from "../../../test/support/spec";
import { ackSchema } from "./ack";
import { ackSha256, ackSignedContext, signAckPush, verifyAckPush, type AckSigningBody } from "./ack-signing";
import { jcs, sha256Hex } from "./jcs";
import { ed25519KeyPair, formatSignatureHeader, signContext, type SigningKey, type VerificationKey } from "./signing";
import { ReplayCache } from "./verify";

const dp008 = vector("dp-008-ack-signature");
const dp009 = vector("dp-009-ack-tamper-invalid");
const hmac = (fixture: Json): SigningKey & VerificationKey => ({ alg: "hmac-sha256", secret: fixture.test_key });
const atSeconds = (t: number | string) => new Date(Number(t) * 1000);

describe("dp-008: the §14.4 pushed-ack signature", () => {
  it("the fixture ack is a valid §14.1 envelope", () => {
    expect(ackSchema.safeParse(dp008.ack).success).toBe(true);
  });

  it("reproduces ack_sha256 from the ack through the fixed five-key wrapper", () => {
    const wrapper = {
      acked_at: dp008.ack.acked_at,
      by: dp008.ack.by,
      in_reply_to: dp008.ack.in_reply_to,
      note: dp008.ack.note,
      resolution_id: dp008.ack.resolution_id,
    };
    expect(jcs(wrapper)).toBe(dp008.ack_canonical_jcs);
    expect(ackSha256(dp008.ack)).toBe(dp008.signed_context.ack_sha256);
    // `ma2h_version` and `type` are not in the digest: they are bound by the context / not at all.
    expect(ackSha256({ ...dp008.ack, ma2h_version: "0.5" })).toBe(dp008.signed_context.ack_sha256);
  });

  it("builds exactly the fixture's context and canonical string, and reproduces v1 and the header", () => {
    const ctx = ackSignedContext({ ack: dp008.ack, jti: dp008.signed_context.jti, t: Number(dp008.signed_context.t) });
    expect(ctx).toStrictEqual(dp008.signed_context);
    expect(jcs(ctx)).toBe(dp008.canonical_jcs);
    expect(signContext(ctx, hmac(dp008))).toBe(dp008.v1);
    const signed = signAckPush({
      ack: dp008.ack,
      key: hmac(dp008),
      now: atSeconds(dp008.signed_context.t),
      jti: dp008.signed_context.jti,
    });
    expect(`MA2H-Signature: ${signed.header}`).toBe(dp008.header);
  });

  it("absent optionals are JSON null in the wrapper, never omitted", () => {
    const bare: AckSigningBody = {
      ma2h_version: "0.5",
      in_reply_to: "msg_1",
      by: "agent:a",
      acked_at: "2026-06-30T15:49:00Z",
    };
    const expected = sha256Hex(
      '{"acked_at":"2026-06-30T15:49:00Z","by":"agent:a","in_reply_to":"msg_1","note":null,"resolution_id":null}',
    );
    expect(ackSha256(bare)).toBe(expected);
    expect(ackSha256({ ...bare, note: null, resolution_id: null })).toBe(expected);
    expect(ackSha256({ ...bare, note: "" })).not.toBe(expected); // an empty note is a note
  });

  it("verifies the fixture push, then rejects the replayed jti within the window", () => {
    const cache = new ReplayCache();
    const now = atSeconds(dp008.signed_context.t);
    const header = dp008.header.replace(/^MA2H-Signature: /, "");
    expect(verifyAckPush({ ack: dp008.ack, header, keys: [hmac(dp008)], now, replayCache: cache })).toEqual({
      ok: true,
    });
    expect(verifyAckPush({ ack: dp008.ack, header, keys: [hmac(dp008)], now, replayCache: cache })).toEqual({
      ok: false,
      reason: "replayed",
    });
  });

  it("rejects a tampered context: another in_reply_to, by or version than the header signed", () => {
    const ctx = { ...dp008.signed_context };
    for (const [k, v] of [
      ["in_reply_to", "msg_OTHER"],
      ["by", "agent:mallory"],
      ["ma2h_version", "0.5"],
    ] as const) {
      const header = formatSignatureHeader({ t: Number(ctx.t), jti: ctx.jti, v1: signContext(ctx, hmac(dp008)) });
      const ack = { ...dp008.ack, [k]: v };
      expect(
        verifyAckPush({ ack, header, keys: [hmac(dp008)], now: atSeconds(ctx.t), replayCache: new ReplayCache() }),
      ).toEqual({ ok: false, reason: "signature_mismatch" });
    }
  });

  it("signs and verifies ed25519 with the same context; the wrong key fails", () => {
    const pair = ed25519KeyPair();
    const other = ed25519KeyPair();
    const now = new Date("2026-12-02T12:00:00Z");
    const { header } = signAckPush({ ack: dp008.ack, key: { alg: "ed25519", privateKey: pair.privateKey }, now });
    expect(
      verifyAckPush({
        ack: dp008.ack,
        header,
        keys: [{ alg: "ed25519", publicKey: other.publicKey }],
        now,
        replayCache: new ReplayCache(),
      }),
    ).toEqual({ ok: false, reason: "signature_mismatch" });
    expect(
      verifyAckPush({
        ack: dp008.ack,
        header,
        keys: [
          { alg: "ed25519", publicKey: other.publicKey },
          { alg: "ed25519", publicKey: pair.publicKey },
        ],
        now,
        replayCache: new ReplayCache(),
      }),
    ).toEqual({ ok: true });
  });

  it("rejects a t outside the ±120 s window and a missing or malformed header", () => {
    const header = dp008.header.replace(/^MA2H-Signature: /, "");
    const later = new Date(atSeconds(dp008.signed_context.t).getTime() + 121_000);
    expect(
      verifyAckPush({ ack: dp008.ack, header, keys: [hmac(dp008)], now: later, replayCache: new ReplayCache() }),
    ).toEqual({ ok: false, reason: "outside_window" });
    expect(
      verifyAckPush({ ack: dp008.ack, header: null, keys: [hmac(dp008)], now: later, replayCache: new ReplayCache() }),
    ).toEqual({ ok: false, reason: "missing_header" });
    expect(
      verifyAckPush({
        ack: dp008.ack,
        header: "t=1,jti=x",
        keys: [hmac(dp008)],
        now: later,
        replayCache: new ReplayCache(),
      }),
    ).toEqual({ ok: false, reason: "malformed_header" });
  });
});

describe("dp-009: a tampered pushed ack fails as a signature mismatch", () => {
  const header = formatSignatureHeader({ t: Number(dp009.t), jti: dp009.jti, v1: dp009.v1 });
  const now = atSeconds(dp009.t);

  it("the honest ack verifies against the fixture v1", () => {
    expect(
      verifyAckPush({ ack: dp009.honest_ack, header, keys: [hmac(dp009)], now, replayCache: new ReplayCache() }),
    ).toEqual({ ok: true });
  });

  it("the tampered note fails with signature_mismatch (not window, key or jti)", () => {
    expect(dp009.tampered_ack.note).not.toBe(dp009.honest_ack.note);
    expect(
      verifyAckPush({ ack: dp009.tampered_ack, header, keys: [hmac(dp009)], now, replayCache: new ReplayCache() }),
    ).toEqual({ ok: false, reason: "signature_mismatch" });
  });

  it("a rewritten by, a dropped note or resolution_id, and a non-object also fail", () => {
    const cases: unknown[] = [
      { ...dp009.honest_ack, by: "agent:someone-else" },
      { ...dp009.honest_ack, note: undefined },
      { ...dp009.honest_ack, resolution_id: undefined },
      { ...dp009.honest_ack, acked_at: "2026-06-30T15:49:01Z" },
      { ...dp009.honest_ack, note: 42 },
      "not an ack",
    ];
    for (const ack of cases) {
      expect(verifyAckPush({ ack, header, keys: [hmac(dp009)], now, replayCache: new ReplayCache() })).toEqual({
        ok: false,
        reason: "signature_mismatch",
      });
    }
  });

  it("a failed verification does not poison the replay cache", () => {
    const cache = new ReplayCache();
    expect(verifyAckPush({ ack: dp009.tampered_ack, header, keys: [hmac(dp009)], now, replayCache: cache }).ok).toBe(
      false,
    );
    expect(cache.size).toBe(0);
    expect(verifyAckPush({ ack: dp009.honest_ack, header, keys: [hmac(dp009)], now, replayCache: cache })).toEqual({
      ok: true,
    });
  });
});

/**
 * The independent §9.8 verifier (test/support/entry-verify.ts) proven against the conformance
 * fixtures dp-011…dp-018 before it is trusted to judge the Hub (test/inter-agent.test.ts): each
 * fixture's pinned signature verifies (and the recomputed digests and canonical bytes equal the
 * pinned ones), each tampered twin is refused with a signature mismatch — not an incidental
 * window/jti/key refusal — and the replay window and jti cache behave as §9.7 pins them. Also: an
 * ed25519 round-trip with a key of our own, so the branch the Hub exercises is tested too.
 */
// covers: test/support/entry-verify.ts
import { ed25519 } from "@noble/curves/ed25519.js";
import canonicalize from "canonicalize";
import { describe, expect, it } from "vitest";
import {
  messagePayloadDigest,
  parseSignatureHeader,
  ReplayGuard,
  receiptDigest,
  responsePayloadDigest,
  type VerifyKey,
  verifyMessageEntry,
  verifyReceiptEntry,
  verifyResponseEntry,
} from "./support/entry-verify";
import { type Json, vector } from "./support/spec";

const hmac = (v: Json): VerifyKey => {
  expect(v.signature_alg).toBe("hmac-sha256");
  return { alg: "hmac-sha256", secret: v.test_key };
};
const tampered = (name: string): [string, Json][] =>
  vector(name).tampered_entries.map((c: Json) => [c.reason, c.entry] as [string, Json]);
const header = (t: string, jti: string, v1: string) => `MA2H-Signature: t=${t},jti=${jti},v1=${v1}`;

describe("dp-011 message entry signature (§9.8)", () => {
  const v = vector("dp-011-entry-message-signature");

  it("recomputes the content digest and the canonical context, and the pinned v1 verifies", () => {
    const digest = messagePayloadDigest(v.entry);
    expect(digest.jcs).toBe(v.content_canonical_jcs);
    expect(digest.sha256).toBe(v.signed_context.payload_sha256);
    const verdict = verifyMessageEntry(v.entry, v.header, hmac(v), { expectTo: v.entry.to });
    expect(verdict).toMatchObject({ ok: true, jti: v.signed_context.jti, t: Number(v.signed_context.t) });
    if (verdict.ok) expect(verdict.canonical).toBe(v.canonical_jcs);
  });

  it("the addressee check is separate from the signature: a validly signed entry for someone else is refused", () => {
    expect(verifyMessageEntry(v.entry, v.header, hmac(v), { expectTo: "agent:deploybot/dev-team#sess_OTHER" })).toEqual(
      expect.objectContaining({ ok: false, reason: "not_addressee" }),
    );
    expect(verifyMessageEntry(v.entry, v.header, { alg: "hmac-sha256", secret: "wrong-key" })).toMatchObject({
      ok: false,
      reason: "bad_signature",
    });
  });
});

describe("dp-012 message entry tamper (§9.8, §13.4)", () => {
  const v = vector("dp-012-entry-message-tamper-invalid");
  const h = header(v.t, v.jti, v.v1);

  it("the honest control verifies", () => {
    expect(verifyMessageEntry(v.honest_entry, h, hmac(v))).toMatchObject({ ok: true });
  });

  it.each(tampered("dp-012-entry-message-tamper-invalid"))("refuses: %s", (_reason, entry) => {
    expect(verifyMessageEntry(entry, h, hmac(v))).toMatchObject({ ok: false, reason: "bad_signature" });
  });
});

describe("dp-013 response entry signature (§9.8)", () => {
  const v = vector("dp-013-entry-response-signature");

  it("recomputes the §9.2 digest, reconstructs to/id, and the pinned v1 verifies", () => {
    const digest = responsePayloadDigest(v.entry);
    expect(digest.jcs).toBe(v.payload_canonical_jcs);
    expect(digest.sha256).toBe(v.signed_context.payload_sha256);
    const verdict = verifyResponseEntry(v.entry, v.header, hmac(v), { to: v.drain_identity.reconstructed_to });
    expect(verdict).toMatchObject({ ok: true });
    if (verdict.ok) expect(verdict.canonical).toBe(v.canonical_jcs);
  });
});

describe("dp-014 response entry cross-session replay and tamper (§9.8)", () => {
  const v = vector("dp-014-entry-response-cross-session-replay-invalid");
  const h = header(v.t, v.jti, v.v1);

  it("the honest control verifies at the honest drain identity", () => {
    expect(
      verifyResponseEntry(v.honest_entry, h, hmac(v), { to: v.honest_drain_identity.reconstructed_to }),
    ).toMatchObject({ ok: true });
  });

  it("the unmodified entry replayed to another session of the submitter is refused", () => {
    expect(
      verifyResponseEntry(v.honest_entry, h, hmac(v), { to: v.replay_drain_identity.reconstructed_to }),
    ).toMatchObject({ ok: false, reason: "bad_signature" });
  });

  it.each(tampered("dp-014-entry-response-cross-session-replay-invalid"))("refuses: %s", (_reason, entry) => {
    expect(verifyResponseEntry(entry, h, hmac(v), { to: v.honest_drain_identity.reconstructed_to })).toMatchObject({
      ok: false,
      reason: "bad_signature",
    });
  });
});

describe("dp-015 response entry without a response detail: resolved_at null (§9.8)", () => {
  const v = vector("dp-015-entry-response-null-resolved-at-signature");

  it("digests {response: null, state: null}, binds resolved_at null, and the pinned v1 verifies", () => {
    const digest = responsePayloadDigest(v.entry);
    expect(digest.jcs).toBe(v.payload_canonical_jcs);
    expect(digest.sha256).toBe(v.signed_context.payload_sha256);
    const verdict = verifyResponseEntry(v.entry, v.header, hmac(v), { to: v.drain_identity.reconstructed_to });
    expect(verdict).toMatchObject({ ok: true });
    if (verdict.ok) expect(verdict.canonical).toBe(v.canonical_jcs);
  });

  it("a verifier that dropped the null key (or used an empty string) would diverge", () => {
    const { resolved_at: _drop, ...without } = v.signed_context;
    expect(canonicalize(without)).not.toBe(v.canonical_jcs);
    expect(canonicalize({ ...v.signed_context, resolved_at: "" })).not.toBe(v.canonical_jcs);
  });
});

describe("dp-016 receipt entry signature (§9.8)", () => {
  const v = vector("dp-016-entry-receipt-signature");

  it("recomputes receipt_sha256 over the six-key wrapper, and the pinned v1 verifies", () => {
    const digest = receiptDigest(v.entry);
    expect(digest.jcs).toBe(v.receipt_canonical_jcs);
    expect(digest.sha256).toBe(v.receipt_sha256);
    const verdict = verifyReceiptEntry(v.entry, v.header, hmac(v), { to: v.drain_identity.reconstructed_to });
    expect(verdict).toMatchObject({ ok: true });
    if (verdict.ok) expect(verdict.canonical).toBe(v.canonical_jcs);
  });

  it("an absent member serializes as null in the wrapper", () => {
    const { prior: _p, ...noPrior } = v.entry;
    expect(receiptDigest(noPrior).jcs).toContain('"prior":null');
  });
});

describe("dp-017 receipt entry tamper and cross-destination replay (§9.8)", () => {
  const v = vector("dp-017-entry-receipt-tamper-invalid");
  const h = header(v.t, v.jti, v.v1);
  const honestTo = v.honest_drain_identity.reconstructed_to;

  it("the honest control verifies", () => {
    expect(verifyReceiptEntry(v.honest_entry, h, hmac(v), { to: honestTo })).toMatchObject({ ok: true });
  });

  it.each(tampered("dp-017-entry-receipt-tamper-invalid"))("refuses: %s", (_reason, entry) => {
    expect(verifyReceiptEntry(entry, h, hmac(v), { to: honestTo })).toMatchObject({
      ok: false,
      reason: "bad_signature",
    });
  });

  it("refuses the unmodified receipt at another session: `to` comes from the drain identity, not the body", () => {
    const replay = verifyReceiptEntry(v.honest_entry, h, hmac(v), { to: v.replay_drain_identity.reconstructed_to });
    expect(replay).toMatchObject({ ok: false, reason: "bad_signature" });
    // The body's `to` still names the honest session: a wire-trusting verifier would have accepted.
    expect(v.honest_entry.to).toBe(honestTo);
  });
});

describe("dp-018 per-delivery re-signing; the replay window and jti cache (§9.8, §9.7)", () => {
  const v = vector("dp-018-entry-redelivery-fresh-signature");
  const entry = vector("dp-011-entry-message-signature").entry;

  it("both deliveries verify against their own header, same bound content, distinct t/jti", () => {
    const verdicts = v.deliveries.map((d: Json) => verifyMessageEntry(entry, d.header, hmac(v)));
    for (const [i, verdict] of verdicts.entries()) {
      expect(verdict).toMatchObject({ ok: true, digest: v.signed_context_base.payload_sha256 });
      expect(verdict.canonical).toBe(v.deliveries[i].canonical_jcs);
    }
    expect(new Set(v.deliveries.map((d: Json) => d.jti)).size).toBe(2);
    // Splicing one delivery's v1 under the other's t/jti does not verify.
    const [a, b] = v.deliveries;
    expect(verifyMessageEntry(entry, header(b.t, b.jti, a.v1), hmac(v))).toMatchObject({ reason: "bad_signature" });
  });

  it("a redelivery (fresh jti) is accepted; the same jti twice is a replay; a t outside ±window is stale", () => {
    const [first, second] = v.deliveries;
    const guard = new ReplayGuard(600);
    const now = Number(second.t) + 10;
    expect(verifyMessageEntry(entry, first.header, hmac(v), { guard, now })).toMatchObject({ ok: true });
    expect(verifyMessageEntry(entry, second.header, hmac(v), { guard, now })).toMatchObject({ ok: true });
    expect(verifyMessageEntry(entry, second.header, hmac(v), { guard, now })).toMatchObject({
      ok: false,
      reason: "replay",
    });
    const tight = new ReplayGuard(120);
    expect(verifyMessageEntry(entry, first.header, hmac(v), { guard: tight, now })).toMatchObject({
      ok: false,
      reason: "stale",
    });
    expect(
      verifyMessageEntry(entry, first.header, hmac(v), { guard: tight, now: Number(first.t) - 121 }),
    ).toMatchObject({ ok: false, reason: "stale" });
    // A refused signature does not poison the cache: the honest header still verifies after it.
    const fresh = new ReplayGuard(600);
    expect(
      verifyMessageEntry(entry, first.header, { alg: "hmac-sha256", secret: "nope" }, { guard: fresh, now }),
    ).toMatchObject({ reason: "bad_signature" });
    expect(verifyMessageEntry(entry, first.header, hmac(v), { guard: fresh, now })).toMatchObject({ ok: true });
  });
});

describe("the ed25519 branch and the header grammar", () => {
  it("an ed25519 signature over the canonical context verifies with the public key only", () => {
    const v = vector("dp-016-entry-receipt-signature");
    const secretKey = ed25519.utils.randomSecretKey();
    const publicKey = ed25519.getPublicKey(secretKey);
    const sig = ed25519.sign(new Uint8Array(Buffer.from(v.canonical_jcs, "utf8")), secretKey);
    const h = header(v.signed_context.t, v.signed_context.jti, Buffer.from(sig).toString("base64url"));
    const key: VerifyKey = { alg: "ed25519", publicKey, kid: "k1" };
    expect(verifyReceiptEntry(v.entry, h, key, { to: v.drain_identity.reconstructed_to })).toMatchObject({
      ok: true,
      kid: "k1",
    });
    const otherKey: VerifyKey = { alg: "ed25519", publicKey: ed25519.getPublicKey(ed25519.utils.randomSecretKey()) };
    expect(verifyReceiptEntry(v.entry, h, otherKey, { to: v.drain_identity.reconstructed_to })).toMatchObject({
      ok: false,
      reason: "bad_signature",
    });
    // Several keys (a rotation overlap): the one that verifies is reported.
    expect(verifyReceiptEntry(v.entry, h, [otherKey, key], { to: v.drain_identity.reconstructed_to })).toMatchObject({
      ok: true,
      kid: "k1",
    });
  });

  it("parses the header with or without its name and refuses a malformed one", () => {
    expect(parseSignatureHeader("t=1,jti=j,v1=AAAA")).toMatchObject({ t: "1", jti: "j" });
    expect(parseSignatureHeader("MA2H-Signature: t=1,jti=j,v1=AAAA")).toMatchObject({ t: "1", jti: "j" });
    for (const bad of ["", "t=x,jti=j,v1=AA", "MA2H-Signature: jti=j,t=1,v1=AA", "t=1,jti=j,v1=a+b/"])
      expect(parseSignatureHeader(bad)).toBeNull();
    const v = vector("dp-011-entry-message-signature");
    expect(verifyMessageEntry(v.entry, "garbage", hmac(v))).toMatchObject({ ok: false, reason: "bad_header" });
    expect(verifyResponseEntry({}, v.header, hmac(v), { to: "" })).toMatchObject({ ok: false, reason: "missing_to" });
  });
});

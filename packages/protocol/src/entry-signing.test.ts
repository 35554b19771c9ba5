/**
 * §9.8 entry signatures against the fixtures, read in place from ../shared/ma2h: dp-011 (message),
 * dp-013 (response), dp-015 (response with no `response`: `resolved_at` null) and dp-016 (receipt)
 * reproduced — digest, canonical context, `v1`, header; their tampered twins dp-012, dp-014
 * (cross-session replay) and dp-017 refused with a signature mismatch after the honest control
 * passes; dp-018 per-delivery re-signing. Plus the window, the jti cache, the message addressee check
 * and ed25519.
 */
import { describe, expect, it } from "vitest";
import { vector } from "../../../test/support/spec";
import {
  checkEntryDelivery,
  drainAddress,
  type DrainIdentity,
  type EntryKind,
  type MessageEntry,
  messagePayloadSha256,
  messageSignedContext,
  type ReceiptEntry,
  receiptSha256,
  receiptSignedContext,
  responseEntrySignedContext,
  signMessageEntry,
  signReceiptEntry,
  signResponseEntry,
  verifyEntryDelivery,
} from "./entry-signing";
import { jcs } from "./jcs";
import { ed25519KeyPair, payloadSha256, type ResponseSigningBody, signContext, type SigningKey } from "./signing";
import { ReplayCache } from "./verify";

const dp011 = vector("dp-011-entry-message-signature");
const dp012 = vector("dp-012-entry-message-tamper-invalid");
const dp013 = vector("dp-013-entry-response-signature");
const dp014 = vector("dp-014-entry-response-cross-session-replay-invalid");
const dp015 = vector("dp-015-entry-response-null-resolved-at-signature");
const dp016 = vector("dp-016-entry-receipt-signature");
const dp017 = vector("dp-017-entry-receipt-tamper-invalid");
const dp018 = vector("dp-018-entry-redelivery-fresh-signature");

const all = [dp011, dp012, dp013, dp014, dp015, dp016, dp017, dp018];
/** Both a signing and a verification key. */
const hmac = { alg: "hmac-sha256" as const, secret: dp011.test_key as string };
const at = (t: string | number) => new Date(Number(t) * 1000);
const tNow = (t: string | number) => new Date(Number(t) * 1000 + 5_000);
const identity = (d: { agent_id: string; session: string }): DrainIdentity => ({
  agentId: d.agent_id,
  session: d.session,
});
/** The recipient of the dp-011 message: deploybot's session sess_01J5WRK0007. */
const deploybot: DrainIdentity = { agentId: "deploybot/dev-team", session: "sess_01J5WRK0007" };

function verifyOnce(kind: EntryKind, entry: unknown, signature: string, self: DrainIdentity, now: Date) {
  return verifyEntryDelivery({ kind, entry, signature, self, keys: [hmac], now, replayCache: new ReplayCache() });
}

it("every fixture signs with the same hmac-sha256 test key", () => {
  for (const v of all) {
    expect(v.signature_alg).toBe("hmac-sha256");
    expect(v.test_key).toBe(dp011.test_key);
  }
});

describe("dp-011 message entry signature", () => {
  const entry = dp011.entry as MessageEntry;
  const { jti, t } = dp011.signed_context;
  it("reproduces payload_sha256 from the delivered entry's present content fields only", () => {
    const content = { type: entry.type, title: entry.title, request: entry.request };
    expect(jcs({ message: content })).toBe(dp011.content_canonical_jcs);
    expect(messagePayloadSha256(entry)).toBe(dp011.signed_context.payload_sha256);
  });
  it("reproduces the context, its JCS, v1 and the header", () => {
    const context = messageSignedContext(entry, jti, Number(t));
    expect(context).toEqual(dp011.signed_context);
    expect(jcs(context)).toBe(dp011.canonical_jcs);
    expect(signContext(context, hmac)).toBe(dp011.v1);
    const signed = signMessageEntry({ entry, key: hmac, now: at(t), jti });
    expect(signed.signature).toBe(dp011.header);
    expect(signed.context).toEqual(dp011.signed_context);
  });
  it("unbound metadata (created_at, expires_at, agent, idempotency_key) does not change the signature", () => {
    const moved = {
      ...entry,
      created_at: "2030-01-01T00:00:00Z",
      expires_at: "2031-01-01T00:00:00Z",
      agent: { id: "someone/else" },
      idempotency_key: "other",
    };
    expect(signContext(messageSignedContext(moved, jti, Number(t)), hmac)).toBe(dp011.v1);
  });
  it("binds sensitive and type, unlike §9.7's directive digest", () => {
    expect(messagePayloadSha256({ ...entry, sensitive: true })).not.toBe(dp011.signed_context.payload_sha256);
    expect(messagePayloadSha256({ ...entry, type: "task" })).not.toBe(dp011.signed_context.payload_sha256);
  });
  it("verifies once at the addressed session; the same header again is a replay", () => {
    const cache = new ReplayCache();
    const args = {
      kind: "message" as const,
      entry,
      signature: dp011.header,
      self: deploybot,
      keys: [hmac],
      now: tNow(t),
      replayCache: cache,
    };
    expect(verifyEntryDelivery(args)).toEqual({ ok: true });
    expect(verifyEntryDelivery(args)).toEqual({ ok: false, reason: "replayed" });
  });
  it("refuses a t outside the window", () => {
    expect(verifyOnce("message", entry, dp011.header, deploybot, at(Number(t) + 121))).toEqual({
      ok: false,
      reason: "outside_window",
    });
  });
  it("refuses a valid entry at another principal or another session of the addressee (§13.4 step 2)", () => {
    expect(verifyOnce("message", entry, dp011.header, { ...deploybot, session: "sess_other" }, tNow(t))).toEqual({
      ok: false,
      reason: "wrong_addressee",
    });
    expect(verifyOnce("message", entry, dp011.header, { ...deploybot, agentId: "other/bot" }, tNow(t))).toEqual({
      ok: false,
      reason: "wrong_addressee",
    });
  });
  it("a principal-addressed entry is accepted at any session of that principal", () => {
    const principal = { ...entry, to: "agent:deploybot/dev-team" };
    const { signature } = signMessageEntry({ entry: principal, key: hmac, now: at(t) });
    expect(verifyOnce("message", principal, signature, { ...deploybot, session: "sess_any" }, tNow(t))).toEqual({
      ok: true,
    });
  });
});

describe("dp-012 message entry tamper", () => {
  const signature = `t=${dp012.t},jti=${dp012.jti},v1=${dp012.v1}`;
  it("the honest entry verifies (positive control)", () => {
    expect(verifyOnce("message", dp012.honest_entry, signature, deploybot, tNow(dp012.t))).toEqual({ ok: true });
  });
  it.each(
    (dp012.tampered_entries as { reason: string; entry: MessageEntry }[]).map((c) => [c.reason.split(" — ")[0], c]),
  )("%s fails with a signature mismatch", (_name, c) => {
    // Verified where the tampered entry claims to be addressed, so only the signature can refuse it.
    const [agentId = "", session = ""] = c.entry.to.slice("agent:".length).split("#");
    expect(verifyOnce("message", c.entry, signature, { agentId, session }, tNow(dp012.t))).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
  });
  it("an unsigned injected field (state) keeps the signature: shape validation's job, not ours (sv-028)", () => {
    const injected = { ...dp012.honest_entry, state: { evil: true } };
    expect(verifyOnce("message", injected, signature, deploybot, tNow(dp012.t))).toEqual({ ok: true });
  });
});

describe("dp-013 response entry signature", () => {
  const entry = dp013.entry as ResponseSigningBody;
  const { jti, t } = dp013.signed_context;
  const to = drainAddress(identity(dp013.drain_identity));
  it("reconstructs `to` from the drain identity", () => {
    expect(to).toBe(dp013.drain_identity.reconstructed_to);
  });
  it("reproduces payload_sha256 through the §9.2 digest", () => {
    expect(jcs({ response: entry.response, state: entry.state })).toBe(dp013.payload_canonical_jcs);
    expect(payloadSha256(entry.response, entry.state)).toBe(dp013.signed_context.payload_sha256);
  });
  it("reproduces the context, its JCS, v1 and the header", () => {
    const context = responseEntrySignedContext({ response: entry, to, jti, t: Number(t) });
    expect(context).toEqual(dp013.signed_context);
    expect(jcs(context)).toBe(dp013.canonical_jcs);
    expect(signContext(context, hmac)).toBe(dp013.v1);
    expect(signResponseEntry({ response: entry, to, key: hmac, now: at(t), jti }).signature).toBe(dp013.header);
  });
  it("verifies at its drain identity; advisory `agent`/`defaulted` are unbound", () => {
    const self = identity(dp013.drain_identity);
    expect(verifyOnce("response", entry, dp013.header, self, tNow(t))).toEqual({ ok: true });
    const advisory = { ...entry, agent: { id: "x" }, defaulted: true };
    expect(verifyOnce("response", advisory, dp013.header, self, tNow(t))).toEqual({ ok: true });
  });
});

describe("dp-014 response entry cross-session replay and tamper", () => {
  const signature = `t=${dp014.t},jti=${dp014.jti},v1=${dp014.v1}`;
  const honest = identity(dp014.honest_drain_identity);
  it("the honest entry verifies at the session it was signed for (positive control)", () => {
    expect(drainAddress(honest)).toBe(dp014.honest_drain_identity.reconstructed_to);
    expect(verifyOnce("response", dp014.honest_entry, signature, honest, tNow(dp014.t))).toEqual({ ok: true });
  });
  it("(1) the same entry and header at another session of the same principal fails with a signature mismatch", () => {
    const replay = identity(dp014.replay_drain_identity);
    expect(drainAddress(replay)).toBe(dp014.replay_drain_identity.reconstructed_to);
    expect(verifyOnce("response", dp014.honest_entry, signature, replay, tNow(dp014.t))).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
  });
  it.each(
    (dp014.tampered_entries as { reason: string; entry: unknown }[]).map((c) => [c.reason.split(" — ")[0], c.entry]),
  )("%s fails with a signature mismatch at the honest identity", (_name, entry) => {
    expect(verifyOnce("response", entry, signature, honest, tNow(dp014.t))).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
  });
  it("covers the answer tamper and the correlation rebind", () => {
    expect(dp014.tampered_entries).toHaveLength(2);
  });
});

describe("dp-015 response entry without `response`: resolved_at null", () => {
  const entry = dp015.entry as ResponseSigningBody;
  const { jti, t } = dp015.signed_context;
  const to = drainAddress(identity(dp015.drain_identity));
  it("digests {response: null, state: null}", () => {
    expect(jcs({ response: null, state: null })).toBe(dp015.payload_canonical_jcs);
    expect(payloadSha256(entry.response, entry.state)).toBe(dp015.signed_context.payload_sha256);
  });
  it("reproduces the context with resolved_at: null (the key kept, not dropped), v1 and the header", () => {
    expect(to).toBe(dp015.drain_identity.reconstructed_to);
    const context = responseEntrySignedContext({ response: entry, to, jti, t: Number(t) });
    expect(context.resolved_at).toBeNull();
    expect(context).toEqual(dp015.signed_context);
    expect(jcs(context)).toBe(dp015.canonical_jcs);
    expect(signContext(context, hmac)).toBe(dp015.v1);
    expect(signResponseEntry({ response: entry, to, key: hmac, now: at(t), jti }).signature).toBe(dp015.header);
    expect(signContext({ ...context, resolved_at: "" }, hmac)).not.toBe(dp015.v1);
  });
  it("verifies from exactly the delivered body", () => {
    expect(verifyOnce("response", entry, dp015.header, identity(dp015.drain_identity), tNow(t))).toEqual({
      ok: true,
    });
  });
});

describe("dp-016 receipt entry signature", () => {
  const entry = dp016.entry as ReceiptEntry;
  const { jti, t } = dp016.signed_context;
  const to = drainAddress(identity(dp016.drain_identity));
  it("reproduces receipt_sha256 over the fixed six-key wrapper", () => {
    const { at: a, event, id, in_reply_to, prior, session } = dp016.entry;
    expect(jcs({ at: a, event, id, in_reply_to, prior, session })).toBe(dp016.receipt_canonical_jcs);
    expect(receiptSha256(entry)).toBe(dp016.receipt_sha256);
  });
  it("reproduces the context, its JCS, v1 and the header", () => {
    expect(to).toBe(dp016.drain_identity.reconstructed_to);
    const context = receiptSignedContext({ receipt: entry, to, jti, t: Number(t) });
    expect(context).toEqual(dp016.signed_context);
    expect(jcs(context)).toBe(dp016.canonical_jcs);
    expect(signContext(context, hmac)).toBe(dp016.v1);
    expect(signReceiptEntry({ receipt: entry, to, key: hmac, now: at(t), jti }).signature).toBe(dp016.header);
  });
  it("an absent member digests as null, distinct from the member present", () => {
    const { session: _dropped, ...partial } = entry;
    expect(receiptSha256(partial)).toBe(receiptSha256({ ...partial, session: null }));
    expect(receiptSha256(partial)).not.toBe(dp016.receipt_sha256);
  });
  it("verifies at its drain identity, whatever the body's `to` says", () => {
    const self = identity(dp016.drain_identity);
    expect(verifyOnce("receipt", entry, dp016.header, self, tNow(t))).toEqual({ ok: true });
    const rerouted = { ...entry, to: "agent:overseer/fleet#sess_01J5OVR0002" };
    expect(verifyOnce("receipt", rerouted, dp016.header, self, tNow(t))).toEqual({ ok: true });
  });
});

describe("dp-017 receipt entry tamper", () => {
  const signature = `t=${dp017.t},jti=${dp017.jti},v1=${dp017.v1}`;
  const honest = identity(dp017.honest_drain_identity);
  it("the honest receipt verifies (positive control)", () => {
    expect(verifyOnce("receipt", dp017.honest_entry, signature, honest, tNow(dp017.t))).toEqual({ ok: true });
  });
  it.each(
    (dp017.tampered_entries as { reason: string; entry: unknown }[]).map((c) => [c.reason.split(" — ")[0], c.entry]),
  )("%s fails with a signature mismatch", (_name, entry) => {
    expect(verifyOnce("receipt", entry, signature, honest, tNow(dp017.t))).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
  });
  it("(3) the unmodified receipt at another sender session fails: `to` comes from our identity, not the body", () => {
    const replay = identity(dp017.replay_drain_identity);
    expect(drainAddress(replay)).toBe(dp017.replay_drain_identity.reconstructed_to);
    expect(verifyOnce("receipt", dp017.honest_entry, signature, replay, tNow(dp017.t))).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
  });
});

describe("dp-018 per-delivery re-signing", () => {
  const entry = dp011.entry as MessageEntry;
  type Delivery = { t: string; jti: string; canonical_jcs: string; header: string; v1: string };
  const deliveries = dp018.deliveries as [Delivery, Delivery];
  it("the base context is dp-011's, less t/jti", () => {
    const { t: _t, jti: _jti, ...base } = dp011.signed_context;
    expect(base).toEqual(dp018.signed_context_base);
  });
  it.each(deliveries.map((d) => [d.jti, d]))("reproduces delivery %s: JCS, v1 and the header", (_jti, d) => {
    const signed = signMessageEntry({ entry, key: hmac, now: at(d.t), jti: d.jti });
    expect(signed.context).toEqual({ ...dp018.signed_context_base, t: d.t, jti: d.jti });
    expect(jcs(signed.context)).toBe(d.canonical_jcs);
    expect(signContext(signed.context, hmac)).toBe(d.v1);
    expect(signed.signature).toBe(d.header);
  });
  it("the two deliveries differ only in t/jti and v1", () => {
    const [one, two] = deliveries;
    expect(one.t).not.toBe(two.t);
    expect(one.jti).not.toBe(two.jti);
    expect(one.v1).not.toBe(two.v1);
  });
  it("a redelivery is not a replay; the same jti twice is; the old header ages out of the window", () => {
    const [one, two] = deliveries;
    const cache = new ReplayCache();
    const verify = (signature: string, now: Date) =>
      verifyEntryDelivery({
        kind: "message",
        entry,
        signature,
        self: deploybot,
        keys: [hmac],
        now,
        replayCache: cache,
      });
    expect(verify(one.header, tNow(one.t))).toEqual({ ok: true });
    expect(verify(two.header, tNow(two.t))).toEqual({ ok: true });
    expect(verify(two.header, tNow(two.t))).toEqual({ ok: false, reason: "replayed" });
    expect(verify(one.header, tNow(two.t))).toEqual({ ok: false, reason: "outside_window" });
  });
  it("the old v1 under the new t/jti is a signature mismatch; a fresh signature at the new t verifies", () => {
    const [one, two] = deliveries;
    const stale = `t=${two.t},jti=${two.jti},v1=${one.v1}`;
    expect(verifyOnce("message", entry, stale, deploybot, tNow(two.t))).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
    const fresh = signMessageEntry({ entry, key: hmac, now: at(two.t) });
    expect(fresh.context.jti).not.toBe(one.jti);
    expect(verifyOnce("message", entry, fresh.signature, deploybot, tNow(two.t))).toEqual({ ok: true });
  });
});

describe("ed25519 and robustness", () => {
  const { privateKey, publicKey } = ed25519KeyPair();
  const key: SigningKey = { alg: "ed25519", privateKey };
  const now = new Date("2026-12-02T00:00:00Z");
  it("all three kinds sign and verify with ed25519; each delivery gets a fresh jti", () => {
    const self = identity(dp013.drain_identity);
    const to = drainAddress(self);
    const cases: [EntryKind, unknown, string, DrainIdentity][] = [
      ["message", dp011.entry, signMessageEntry({ entry: dp011.entry, key, now }).signature, deploybot],
      ["response", dp013.entry, signResponseEntry({ response: dp013.entry, to, key, now }).signature, self],
      ["receipt", dp016.entry, signReceiptEntry({ receipt: dp016.entry, to, key, now }).signature, self],
    ];
    const cache = new ReplayCache();
    for (const [kind, entry, signature, id] of cases) {
      const input = { kind, entry, signature, self: id, now, replayCache: cache };
      expect(verifyEntryDelivery({ ...input, keys: [{ alg: "ed25519", publicKey }] })).toEqual({ ok: true });
      expect(checkEntryDelivery({ ...input, keys: [hmac] })).toEqual({ ok: false, reason: "signature_mismatch" });
    }
    const a = signMessageEntry({ entry: dp011.entry, key, now });
    const b = signMessageEntry({ entry: dp011.entry, key, now });
    expect(a.context.jti).not.toBe(b.context.jti);
  });
  it("a missing signature, a malformed header and a body that cannot have been signed are refused", () => {
    const base = {
      kind: "receipt" as const,
      self: identity(dp016.drain_identity),
      keys: [hmac],
      now: tNow(1786752120),
    };
    expect(checkEntryDelivery({ ...base, entry: dp016.entry, signature: null })).toEqual({
      ok: false,
      reason: "missing_header",
    });
    expect(checkEntryDelivery({ ...base, entry: dp016.entry, signature: "MA2H-Signature: nonsense" })).toEqual({
      ok: false,
      reason: "malformed_header",
    });
    for (const entry of [null, [], "x", { ...dp016.entry, in_reply_to: 7 }, { ...dp016.entry, prior: 1 }])
      expect(checkEntryDelivery({ ...base, entry, signature: dp016.header })).toEqual({
        ok: false,
        reason: "signature_mismatch",
      });
  });
  it("a signature for one kind does not verify as another", () => {
    const self = identity(dp016.drain_identity);
    expect(verifyOnce("response", dp016.entry, dp016.header, self, tNow(dp016.signed_context.t))).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
  });
});

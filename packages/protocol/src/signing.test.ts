/**
 * §9.2 signer and verifier against the fixtures, read in place from ../shared/ma2h: dp-001 (context,
 * digest, `v1`, header), dp-003 (payload tamper), dp-004 (numeric JCS), dp-025 (`v1`
 * well-formedness), plus window, replay, ed25519, header grammar and the JWKS shape.
 */
import { describe, expect, it } from "vitest";
import { type Json, vector } from "../../../test/support/spec";
import { jcs, sha256Hex } from "./jcs";
import {
  decodeMac,
  ed25519KeyPair,
  formatSignatureHeader,
  isWellFormedMac,
  jwkFromEd25519,
  kidFor,
  parseSignatureHeader,
  payloadSha256,
  publicKeyFromJwk,
  responseSignedContext,
  signContext,
  signResponsePush,
  type ResponseSigningBody,
  type SigningKey,
} from "./signing";
import { ReplayCache, verifyResponsePush } from "./verify";

const dp001 = vector("dp-001-signature");
const dp003 = vector("dp-003-payload-tamper-invalid");
const dp004 = vector("dp-004-numeric-payload");
const dp015 = vector("dp-015-entry-response-null-resolved-at-signature");
const dp025 = vector("dp-025-mac-well-formedness");

/** A Response body carrying a fixture context's bound fields and the given payload. */
function bodyFrom(ctx: Json, payload: Json): ResponseSigningBody & Json {
  return {
    ma2h_version: ctx.ma2h_version,
    in_reply_to: ctx.in_reply_to,
    resolution_id: ctx.resolution_id,
    agent: { id: "deploybot/dev-team", run_id: "run_01" },
    resolution: ctx.resolution,
    ...(payload.response === undefined ? {} : { response: payload.response }),
    defaulted: false,
    ...(payload.state === undefined ? {} : { state: payload.state }),
  };
}

function contextOf(fixture: Json, payload: Json) {
  const ctx = fixture.signed_context;
  return responseSignedContext({
    response: bodyFrom(ctx, payload),
    callbackUrl: ctx.callback_url,
    jti: ctx.jti,
    t: Number(ctx.t),
  });
}

const hmac = (fixture: Json): SigningKey => ({ alg: "hmac-sha256", secret: fixture.test_key });
const atSeconds = (t: number | string) => new Date(Number(t) * 1000);

describe("dp-001: the §9.2 push signature", () => {
  it("reproduces payload_sha256 from the payload", () => {
    expect(payloadSha256(dp001.payload.response, dp001.payload.state)).toBe(dp001.signed_context.payload_sha256);
  });

  it("builds exactly the fixture's context and canonical string, and reproduces v1 byte-exact", () => {
    const context = contextOf(dp001, dp001.payload);
    expect(context).toStrictEqual(dp001.signed_context);
    expect(Object.keys(context).sort()).toEqual(
      [
        "ma2h_version",
        "callback_url",
        "id",
        "in_reply_to",
        "jti",
        "payload_sha256",
        "resolution",
        "resolution_id",
        "resolved_at",
        "t",
      ].sort(),
    );
    expect(jcs(context)).toBe(dp001.canonical_jcs);
    expect(signContext(context, hmac(dp001))).toBe(dp001.v1);
  });

  it("formats the fixture's header", () => {
    const ctx = dp001.signed_context;
    const value = formatSignatureHeader({ t: Number(ctx.t), jti: ctx.jti, v1: dp001.v1 });
    expect(`MA2H-Signature: ${value}`).toBe(dp001.header);
    const signed = signResponsePush({
      response: bodyFrom(ctx, dp001.payload),
      callbackUrl: ctx.callback_url,
      key: hmac(dp001),
      now: new Date(Number(ctx.t) * 1000 + 999),
      jti: ctx.jti,
    });
    expect(`MA2H-Signature: ${signed.header}`).toBe(dp001.header);
  });

  it("verifies once, then rejects the same jti as replayed", () => {
    const ctx = dp001.signed_context;
    const header = dp001.header.replace(/^MA2H-Signature:\s*/, "");
    const args = {
      body: bodyFrom(ctx, dp001.payload),
      header,
      callbackUrl: ctx.callback_url,
      keys: [{ alg: "hmac-sha256" as const, secret: dp001.test_key }],
      replayCache: new ReplayCache(),
    };
    expect(verifyResponsePush({ ...args, now: atSeconds(ctx.t) })).toEqual({ ok: true });
    expect(verifyResponsePush({ ...args, now: atSeconds(Number(ctx.t) + 60) })).toEqual({
      ok: false,
      reason: "replayed",
    });
    // Still remembered at the far edge of the window for a t in the verifier's future.
    expect(args.replayCache.has(ctx.jti, atSeconds(Number(ctx.t) + 119))).toBe(true);
  });
});

describe("dp-003: a tampered payload fails with signature_mismatch", () => {
  const ctx = dp003.signed_context;
  const header = formatSignatureHeader({ t: Number(ctx.t), jti: ctx.jti, v1: dp003.v1 });
  const now = atSeconds(ctx.t);
  const verify = (
    body: unknown,
    callbackUrl: string = ctx.callback_url,
    h: string = header,
    cache = new ReplayCache(),
  ) =>
    verifyResponsePush({
      body,
      header: h,
      callbackUrl,
      keys: [{ alg: "hmac-sha256", secret: dp003.test_key }],
      now,
      replayCache: cache,
    });
  const honest = () => structuredClone(bodyFrom(ctx, dp003.honest_payload));

  it("the honest control verifies, and its digest is the signed one", () => {
    expect(payloadSha256(dp003.honest_payload.response, dp003.honest_payload.state)).toBe(ctx.payload_sha256);
    expect(verify(honest())).toEqual({ ok: true });
  });

  it("the fixture's tampered payload (hold → ship) fails", () => {
    expect(payloadSha256(dp003.tampered_payload.response, dp003.tampered_payload.state)).not.toBe(ctx.payload_sha256);
    expect(verify(bodyFrom(ctx, dp003.tampered_payload))).toEqual({ ok: false, reason: "signature_mismatch" });
  });

  const tampers: Array<[string, (b: Json) => void]> = [
    ["response.comment", (b) => (b.response.comment += "!")],
    ["response.actor", (b) => (b.response.actor = "human:mallory")],
    ["response.edited", (b) => (b.response.edited = true)],
    ["response.resolved_at", (b) => (b.response.resolved_at = "2026-06-04T15:48:31Z")],
    ["response removed", (b) => delete b.response],
    ["state.sealed", (b) => (b.state.sealed = "v1.demo.FORGED")],
    ["state removed", (b) => delete b.state],
    ["state extra member", (b) => (b.state.extra = 1)],
    ["resolution", (b) => (b.resolution = "declined")],
    ["resolution_id", (b) => (b.resolution_id = "res_01HZXOTHER")],
    ["in_reply_to", (b) => (b.in_reply_to = "msg_01HZXOTHER")],
    ["ma2h_version", (b) => (b.ma2h_version = "0.4")],
  ];
  it.each(tampers)("tampered %s fails", (_name, mutate) => {
    const body = honest();
    mutate(body);
    expect(verify(body)).toEqual({ ok: false, reason: "signature_mismatch" });
  });

  it("a different callback URL, jti or t (inside the window) fails", () => {
    expect(verify(honest(), `${ctx.callback_url}?x=1`)).toEqual({ ok: false, reason: "signature_mismatch" });
    expect(verify(honest(), ctx.callback_url.replace("https://", "HTTPS://"))).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
    const otherJti = formatSignatureHeader({ t: Number(ctx.t), jti: "jti_OTHER", v1: dp003.v1 });
    expect(verify(honest(), ctx.callback_url, otherJti)).toEqual({ ok: false, reason: "signature_mismatch" });
    const otherT = formatSignatureHeader({ t: Number(ctx.t) + 1, jti: ctx.jti, v1: dp003.v1 });
    expect(verify(honest(), ctx.callback_url, otherT)).toEqual({ ok: false, reason: "signature_mismatch" });
  });

  it("unbound top-level fields (agent, defaulted) do not affect verification", () => {
    const body = honest();
    body.agent = { id: "someone/else", run_id: "run_x" };
    body.defaulted = true;
    expect(verify(body)).toEqual({ ok: true });
  });

  it("a forged request does not poison the cache for the honest one", () => {
    const cache = new ReplayCache();
    expect(verify(bodyFrom(ctx, dp003.tampered_payload), ctx.callback_url, header, cache)).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
    expect(cache.size).toBe(0);
    expect(verify(honest(), ctx.callback_url, header, cache)).toEqual({ ok: true });
  });

  it("a body that is not a Response fails with signature_mismatch", () => {
    for (const body of [null, "x", [], {}, { ...honest(), resolution: 1 }, { ...honest(), response: "hold" }]) {
      expect(verify(body)).toEqual({ ok: false, reason: "signature_mismatch" });
    }
  });
});

describe("dp-004: numeric payload canonicalization", () => {
  it("produces the canonical bytes and digest", () => {
    const { response, state } = dp004.payload;
    expect(jcs({ response, state })).toBe(dp004.payload_canonical_jcs);
    expect(payloadSha256(response, state)).toBe(dp004.payload_sha256);
    expect(sha256Hex(dp004.payload_canonical_jcs)).toBe(dp004.payload_sha256);
  });
});

describe("dp-025: v1 well-formedness", () => {
  it("re-derives the well-formed v1 from the signer (drift control)", () => {
    const context = responseSignedContext({
      response: bodyFrom(dp025.signed_context, {
        response: { value: "x", actor: "human:a", resolved_at: dp025.signed_context.resolved_at },
      }),
      callbackUrl: dp025.signed_context.callback_url,
      jti: dp025.signed_context.jti,
      t: Number(dp025.signed_context.t),
    });
    // The vector pins payload_sha256 directly; the rest of the context comes from the builder.
    const pinned = { ...context, payload_sha256: dp025.signed_context.payload_sha256 };
    expect(pinned).toStrictEqual(dp025.signed_context);
    expect(jcs(pinned)).toBe(dp025.canonical_jcs);
    expect(signContext(pinned, hmac(dp025))).toBe(dp025.v1);
    expect(dp025.cases[0].value).toBe(dp025.v1);
  });

  it("has the nine pinned cases", () => {
    expect(dp025.cases).toHaveLength(9);
  });

  const cases: Array<[string, Json]> = dp025.cases.map((c: Json) => [c.note as string, c]);
  it.each(cases)("%s", (_note, c) => {
    const decoded = decodeMac(c.value);
    expect(isWellFormedMac(c.value)).toBe(c.expect === "well-formed");
    if (c.expect === "ill-formed") {
      expect(decoded).toBeNull();
      return;
    }
    expect(decoded).not.toBeNull();
    if (c.decoded_length !== undefined) expect(decoded!.length).toBe(c.decoded_length);
    if (c.decodes_identically_to !== undefined) expect(decoded).toEqual(decodeMac(c.decodes_identically_to));
  });

  it("accepts the 86-character ed25519 signature and refuses impossible lengths", () => {
    const { privateKey } = ed25519KeyPair();
    const v1 = signContext(dp025.signed_context, { alg: "ed25519", privateKey });
    expect(v1).toMatch(/^[A-Za-z0-9_-]{86}$/);
    expect(decodeMac(v1)?.length).toBe(64);
    expect(decodeMac(`${v1}==`)?.length).toBe(64);
    expect(isWellFormedMac(`${v1}=`)).toBe(false);
    expect(isWellFormedMac(`${dp025.v1}AA`)).toBe(false); // 45 chars: length ≡ 1 mod 4
    expect(isWellFormedMac("")).toBe(false);
    expect(isWellFormedMac("=")).toBe(false);
  });
});

describe("the replay window (±120 s)", () => {
  const ctx = dp001.signed_context;
  const key = hmac(dp001);
  const keys = [{ alg: "hmac-sha256" as const, secret: dp001.test_key }];
  const body = bodyFrom(ctx, dp001.payload);
  const nowT = Number(ctx.t);
  const at = (t: number) =>
    signResponsePush({ response: body, callbackUrl: ctx.callback_url, key, now: atSeconds(t) }).header;
  const verify = (header: string, windowSeconds?: number) =>
    verifyResponsePush({
      body,
      header,
      callbackUrl: ctx.callback_url,
      keys,
      now: atSeconds(nowT),
      windowSeconds,
      replayCache: new ReplayCache(),
    });

  it("accepts t within ±120 s, inclusive", () => {
    for (const dt of [-120, -1, 0, 1, 120]) expect(verify(at(nowT + dt))).toEqual({ ok: true });
  });

  it("rejects t outside ±120 s with outside_window", () => {
    for (const dt of [-121, 121, -100_000])
      expect(verify(at(nowT + dt))).toEqual({ ok: false, reason: "outside_window" });
  });

  it("honours a configured window", () => {
    expect(verify(at(nowT - 200), 300)).toEqual({ ok: true });
    expect(verify(at(nowT - 200))).toEqual({ ok: false, reason: "outside_window" });
  });

  it("each push gets a fresh jti, so two pushes of one Response both verify", () => {
    const cache = new ReplayCache();
    const run = (header: string) =>
      verifyResponsePush({
        body,
        header,
        callbackUrl: ctx.callback_url,
        keys,
        now: atSeconds(nowT),
        replayCache: cache,
      });
    const [a, b] = [at(nowT), at(nowT)];
    expect(parseSignatureHeader(a)!.jti).toMatch(/^jti_/);
    expect(parseSignatureHeader(a)!.jti).not.toBe(parseSignatureHeader(b)!.jti);
    expect(run(a)).toEqual({ ok: true });
    expect(run(b)).toEqual({ ok: true });
    expect(run(a)).toEqual({ ok: false, reason: "replayed" });
  });
});

describe("ReplayCache", () => {
  it("forgets a jti after its TTL and keeps it while the window still admits its t", () => {
    const cache = new ReplayCache({ ttlSeconds: 120 });
    const t0 = atSeconds(1_000);
    cache.add("jti_a", t0);
    expect(cache.has("jti_a", atSeconds(1_119))).toBe(true);
    expect(cache.has("jti_a", atSeconds(1_120))).toBe(false);
    cache.add("jti_b", t0, atSeconds(1_240));
    expect(cache.has("jti_b", atSeconds(1_239))).toBe(true);
  });

  it("refuses a TTL shorter than the window", () => {
    expect(() => new ReplayCache({ ttlSeconds: 60 })).toThrow(RangeError);
  });

  it("stays bounded, pruning expired entries first", () => {
    const cache = new ReplayCache({ maxEntries: 10 });
    for (let i = 0; i < 10; i++) cache.add(`old_${i}`, atSeconds(0));
    cache.add("fresh", atSeconds(10_000));
    expect(cache.size).toBe(1);
    for (let i = 0; i < 50; i++) cache.add(`live_${i}`, atSeconds(10_000));
    expect(cache.size).toBeLessThanOrEqual(10);
    expect(cache.has("live_49", atSeconds(10_000))).toBe(true);
  });
});

describe("ed25519", () => {
  const ctx = dp001.signed_context;
  const body = bodyFrom(ctx, dp001.payload);
  const now = atSeconds(ctx.t);
  const push = (privateKey: Uint8Array) =>
    signResponsePush({ response: body, callbackUrl: ctx.callback_url, key: { alg: "ed25519", privateKey }, now })
      .header;

  it("round-trips with a generated key, trying each published key", () => {
    const pair = ed25519KeyPair();
    const other = ed25519KeyPair();
    expect(pair.privateKey).toHaveLength(32);
    expect(pair.publicKey).toHaveLength(32);
    const keys = [
      { alg: "hmac-sha256" as const, secret: "not-it" },
      { alg: "ed25519" as const, publicKey: other.publicKey },
      { alg: "ed25519" as const, publicKey: pair.publicKey },
    ];
    const result = verifyResponsePush({
      body,
      header: push(pair.privateKey),
      callbackUrl: ctx.callback_url,
      keys,
      now,
      replayCache: new ReplayCache(),
    });
    expect(result).toEqual({ ok: true });
  });

  it("fails with signature_mismatch under a wrong key, an HMAC key or a malformed public key", () => {
    const pair = ed25519KeyPair();
    const header = push(pair.privateKey);
    for (const keys of [
      [{ alg: "ed25519" as const, publicKey: ed25519KeyPair().publicKey }],
      [{ alg: "hmac-sha256" as const, secret: dp001.test_key }],
      [{ alg: "ed25519" as const, publicKey: new Uint8Array(5) }],
      [],
    ]) {
      expect(
        verifyResponsePush({ body, header, callbackUrl: ctx.callback_url, keys, now, replayCache: new ReplayCache() }),
      ).toEqual({
        ok: false,
        reason: "signature_mismatch",
      });
    }
  });

  it("signs deterministically over the UTF-8 JCS bytes", () => {
    const { privateKey } = ed25519KeyPair();
    const context = { ...dp001.signed_context, callback_url: "https://agent.example/cb?q=é" };
    expect(signContext(context, { alg: "ed25519", privateKey })).toBe(
      signContext(context, { alg: "ed25519", privateKey }),
    );
  });
});

describe("the push context", () => {
  it("binds resolved_at as null and the digest of {null, null} for a response-less task", () => {
    const body = { ma2h_version: "0.5", in_reply_to: "msg_task", resolution: "completed", resolution_id: "res_task" };
    const context = responseSignedContext({ response: body, callbackUrl: "https://a.example/cb", jti: "jti_x", t: 1 });
    expect(context.resolved_at).toBeNull();
    expect(jcs(context)).toContain('"resolved_at":null');
    expect(context.payload_sha256).toBe(sha256Hex(dp015.payload_canonical_jcs));
    expect(context.payload_sha256).toBe(dp015.signed_context.payload_sha256);
    expect(payloadSha256({ ...body, response: null }.response, null)).toBe(context.payload_sha256);
  });

  it("keeps the callback URL exactly as given and t as a string", () => {
    const url = "https://Agent.Example:443/ma2h/resume/?b=2&a=1&q=%7E#frag";
    const context = responseSignedContext({
      response: bodyFrom(dp001.signed_context, dp001.payload),
      callbackUrl: url,
      jti: "jti_y",
      t: 42,
    });
    expect(context.callback_url).toBe(url);
    expect(context.t).toBe("42");
    expect(context.id).toBe(context.in_reply_to);
  });

  it("keys HMAC with the secret's UTF-8 bytes exactly as given", () => {
    const context = dp001.signed_context;
    expect(signContext(context, { alg: "hmac-sha256", secret: "ключ " })).not.toBe(
      signContext(context, { alg: "hmac-sha256", secret: "ключ" }),
    );
    expect(signContext(context, { alg: "hmac-sha256", secret: "e\u0301" })).not.toBe(
      signContext(context, { alg: "hmac-sha256", secret: "\u00e9" }),
    );
  });
});

describe("MA2H-Signature header", () => {
  it("round-trips and carries exactly t, jti, v1", () => {
    const value = formatSignatureHeader({ t: 1749050910, jti: "jti_abc", v1: dp001.v1 });
    expect(value).toBe(`t=1749050910,jti=jti_abc,v1=${dp001.v1}`);
    expect(parseSignatureHeader(value)).toEqual({ t: 1749050910, jti: "jti_abc", v1: dp001.v1 });
  });

  it("tolerates spaces around commas, padded v1 and unknown parameters", () => {
    expect(parseSignatureHeader(`t=1 , jti=j ,\tv1=${dp025.v1}=`)).toEqual({ t: 1, jti: "j", v1: `${dp025.v1}=` });
    expect(parseSignatureHeader(`v1=${dp001.v1},t=5,jti=j,v2=zzz`)).toEqual({ t: 5, jti: "j", v1: dp001.v1 });
  });

  it.each([
    ["empty", ""],
    ["missing t", "jti=j,v1=abc"],
    ["missing jti", "t=1,v1=abc"],
    ["missing v1", "t=1,jti=j"],
    ["duplicate t", "t=1,t=1,jti=j,v1=abc"],
    ["duplicate jti", "t=1,jti=a,jti=b,v1=abc"],
    ["duplicate v1", "t=1,jti=j,v1=abc,v1=abd"],
    ["non-digit t", "t=12a,jti=j,v1=abc"],
    ["negative t", "t=-1,jti=j,v1=abc"],
    ["fractional t", "t=1.5,jti=j,v1=abc"],
    ["unsafe t", "t=99999999999999999999,jti=j,v1=abc"],
    ["empty value", "t=1,jti=,v1=abc"],
    ["empty part", "t=1,,jti=j,v1=abc"],
    ["no equals", "t=1,jti,v1=abc"],
    ["whitespace inside a value", "t=1,jti=a b,v1=abc"],
    ["the header name included", "MA2H-Signature: t=1,jti=j,v1=abc"],
  ])("refuses %s", (_name, value) => {
    expect(parseSignatureHeader(value)).toBeNull();
  });

  it("the verifier reports missing, malformed headers and malformed MACs", () => {
    const ctx = dp001.signed_context;
    const base = {
      body: bodyFrom(ctx, dp001.payload),
      callbackUrl: ctx.callback_url,
      keys: [{ alg: "hmac-sha256" as const, secret: dp001.test_key }],
      now: atSeconds(ctx.t),
      replayCache: new ReplayCache(),
    };
    expect(verifyResponsePush({ ...base, header: null })).toEqual({ ok: false, reason: "missing_header" });
    expect(verifyResponsePush({ ...base, header: "  " })).toEqual({ ok: false, reason: "missing_header" });
    expect(verifyResponsePush({ ...base, header: "t=x,jti=j,v1=y" })).toEqual({
      ok: false,
      reason: "malformed_header",
    });
    for (const c of dp025.cases.filter((c: Json) => c.expect === "ill-formed")) {
      const header = `t=${ctx.t},jti=${ctx.jti},v1=${c.value}`;
      expect(verifyResponsePush({ ...base, header })).toEqual({ ok: false, reason: "malformed_mac" });
    }
  });

  it("refuses to format a header that would not parse", () => {
    expect(() => formatSignatureHeader({ t: -1, jti: "j", v1: "v" })).toThrow(TypeError);
    expect(() => formatSignatureHeader({ t: 1.5, jti: "j", v1: "v" })).toThrow(TypeError);
    expect(() => formatSignatureHeader({ t: 1, jti: "a,b", v1: "v" })).toThrow(TypeError);
    expect(() => formatSignatureHeader({ t: 1, jti: "j", v1: "" })).toThrow(TypeError);
  });
});

describe("JWKS shape (/.well-known/ma2h-keys)", () => {
  it("publishes public members only, with a thumbprint kid", () => {
    const { publicKey } = ed25519KeyPair();
    const kid = kidFor(publicKey);
    const jwk = jwkFromEd25519(publicKey, kid);
    expect(Object.keys(jwk).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x"]);
    expect(jwk).toMatchObject({ kty: "OKP", crv: "Ed25519", use: "sig", alg: "EdDSA", kid });
    expect(jwk.x).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(publicKeyFromJwk(jwk)).toEqual(publicKey);
    expect(publicKeyFromJwk({ ...jwk, crv: "X25519" })).toBeNull();
    expect(kidFor(publicKey)).toBe(kid);
    expect(kidFor(ed25519KeyPair().publicKey)).not.toBe(kid);
  });

  it("kidFor is the RFC 7638 thumbprint (RFC 8037 appendix A.3 vector)", () => {
    const publicKey = new Uint8Array(
      Buffer.from("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "hex"),
    );
    expect(jwkFromEd25519(publicKey, "k").x).toBe("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo");
    expect(kidFor(publicKey)).toBe("kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k");
  });
});

/**
 * What an agent does with a push it receives (§9.2), written from the spec and NOT from
 * @ma2h/protocol — the point is to catch the Hub and its own verifier agreeing on a mistake. It rebuilds
 * the 10-key `signed_context` from the body it received, the header, and the callback URL it
 * registered; recomputes `payload_sha256`; checks `t` against its own clock (±window) and `jti`
 * against a replay cache; then verifies HMAC-SHA256 with its secret(s) or ed25519 against the
 * Hub's published JWKS (re-fetched once when no cached key verifies, e.g. after a rotation).
 * docs/agents.md shows the same few lines.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import canonicalize from "canonicalize";

export type Verdict =
  | {
      ok: true;
      body: Record<string, any>;
      t: number;
      jti: string;
      alg: "hmac-sha256" | "ed25519";
      kid?: string;
      secret?: string;
    }
  | { ok: false; reason: "no_header" | "bad_header" | "stale" | "replay" | "bad_body" | "bad_signature" };

export interface AgentVerifierOptions {
  /** The callback URL exactly as the agent put it in `callback.url`. */
  callbackUrl: string;
  /** hmac scheme: the secret(s) the agent holds (two during a rotation). */
  hmacSecrets?: string[];
  /** Other schemes: the Hub's `/.well-known/ma2h-keys`. */
  jwksUrl?: string;
  /** A JWKS fetched earlier (e.g. cached before a rotation); refreshed when no key in it verifies. */
  keys?: Jwk[];
  windowSeconds?: number;
}

export type Jwk = { kty: string; crv: string; x: string; kid: string };

export class AgentVerifier {
  private seen = new Map<string, number>(); // jti → forget after (unix s)
  private keys: Jwk[] = [];
  readonly window: number;

  constructor(private readonly opts: AgentVerifierOptions) {
    this.window = opts.windowSeconds ?? 120;
    this.keys = opts.keys ?? [];
  }

  private async fetchKeys(): Promise<void> {
    const res = await fetch(this.opts.jwksUrl as string);
    this.keys = ((await res.json()) as { keys: Jwk[] }).keys;
  }

  /** `now` is the agent's clock in unix seconds (default: now). */
  async verify(
    headers: Record<string, string | string[] | undefined>,
    rawBody: string,
    now = Date.now() / 1000,
  ): Promise<Verdict> {
    const header = headers["ma2h-signature"];
    if (typeof header !== "string") return { ok: false, reason: "no_header" };
    const fields = Object.fromEntries(header.split(",").map((p) => p.trim().split(/=(.*)/s).slice(0, 2)));
    const { t: tText, jti, v1 } = fields as Record<string, string | undefined>;
    if (!tText || !/^\d+$/.test(tText) || !jti || !v1 || !/^[A-Za-z0-9_-]+={0,2}$/.test(v1))
      return { ok: false, reason: "bad_header" };
    const t = Number(tText);
    if (Math.abs(now - t) > this.window) return { ok: false, reason: "stale" };
    for (const [j, until] of this.seen) if (until < now) this.seen.delete(j);
    if (this.seen.has(jti)) return { ok: false, reason: "replay" };

    let body: Record<string, any>;
    try {
      body = JSON.parse(rawBody);
    } catch {
      return { ok: false, reason: "bad_body" };
    }
    if (typeof body !== "object" || body === null) return { ok: false, reason: "bad_body" };
    const payload = createHash("sha256")
      .update(canonicalize({ response: body.response ?? null, state: body.state ?? null }) as string, "utf8")
      .digest("hex");
    const context = {
      ma2h_version: body.ma2h_version,
      callback_url: this.opts.callbackUrl,
      id: body.in_reply_to,
      in_reply_to: body.in_reply_to,
      jti,
      payload_sha256: payload,
      resolution: body.resolution,
      resolution_id: body.resolution_id,
      resolved_at: body.response?.resolved_at ?? null,
      t: tText,
    };
    const message = Buffer.from(canonicalize(context) as string, "utf8");
    const signature = Buffer.from(v1.replace(/=+$/, ""), "base64url");

    let verdict: Verdict | null = null;
    for (const secret of this.opts.hmacSecrets ?? []) {
      const mac = createHmac("sha256", Buffer.from(secret, "utf8")).update(message).digest();
      if (mac.length === signature.length && timingSafeEqual(mac, signature)) {
        verdict = { ok: true, body, t, jti, alg: "hmac-sha256", secret };
        break;
      }
    }
    if (!verdict && this.opts.jwksUrl) {
      const tryKeys = () =>
        this.keys.find(
          (k) =>
            k.kty === "OKP" && k.crv === "Ed25519" && safeVerify(signature, message, Buffer.from(k.x, "base64url")),
        );
      let key = tryKeys();
      if (!key) {
        await this.fetchKeys(); // a rotation since the last fetch
        key = tryKeys();
      }
      if (key) verdict = { ok: true, body, t, jti, alg: "ed25519", kid: key.kid };
    }
    if (!verdict) return { ok: false, reason: "bad_signature" };
    this.seen.set(jti, t + this.window + 1);
    return verdict;
  }
}

function safeVerify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  try {
    return ed25519.verify(signature, message, publicKey);
  } catch {
    return false;
  }
}

/**
 * What a consuming agent does with each drained directive (§9.7, §13.4), written from the spec and
 * NOT from @ma2h/protocol, so the Hub and its own helpers cannot agree on a mistake unnoticed: strip
 * the `MA2H-Signature: ` prefix, parse t/jti/v1, check t against its own clock (±window), recompute
 * payload_sha256 from the five content fields it received, rebuild the 7-key context, verify
 * ed25519 against the Hub's published JWKS, confirm `to` is itself, refuse a replayed jti, then
 * dedup on the directive id. docs/receiving-directives.md shows the same steps.
 */
import { createHash } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import canonicalize from "canonicalize";

type Jwk = { kty: string; crv: string; x: string; kid: string };
export type DirectiveVerdict =
  | { ok: true; id: string; jti: string; t: number }
  | { ok: false; reason: "bad_header" | "stale" | "bad_signature" | "not_mine" | "replay" | "duplicate" };

export class DirectiveAgent {
  private keys: Jwk[] = [];
  private seenJti = new Map<string, number>();
  /** Directive ids acted on (at most once each). */
  readonly actedOn = new Set<string>();

  constructor(
    readonly self: string,
    private readonly jwksUrl: string,
    private readonly windowSeconds = 120,
  ) {}

  private async loadKeys(): Promise<void> {
    const res = await fetch(this.jwksUrl);
    this.keys = ((await res.json()) as { keys: Jwk[] }).keys;
  }

  /** Verifies one `{directive, signature}` entry and, if new, records it as acted on. */
  async receive(
    entry: { directive: Record<string, unknown>; signature: string },
    now = Date.now(),
  ): Promise<DirectiveVerdict> {
    const m = /^MA2H-Signature: t=(\d+),jti=([^,\s]+),v1=([A-Za-z0-9_-]+)$/.exec(entry.signature);
    if (!m) return { ok: false, reason: "bad_header" };
    const t = Number(m[1]);
    const jti = m[2]!;
    const sig = Buffer.from(m[3]!, "base64url");
    if (Math.abs(now / 1000 - t) > this.windowSeconds) return { ok: false, reason: "stale" };
    const d = entry.directive;
    const content: Record<string, unknown> = {};
    for (const k of ["title", "body", "priority", "tags", "context"]) if (d[k] !== undefined) content[k] = d[k];
    const payload = createHash("sha256")
      .update(canonicalize({ directive: content })!, "utf8")
      .digest("hex");
    const context = {
      from: d.from,
      id: d.id,
      jti,
      ma2h_version: d.ma2h_version,
      payload_sha256: payload,
      t: String(t),
      to: d.to,
    };
    const bytes = Buffer.from(canonicalize(context)!, "utf8");
    const verifies = () => this.keys.some((k) => ed25519.verify(sig, bytes, Buffer.from(k.x, "base64url")));
    if (this.keys.length === 0) await this.loadKeys();
    if (!verifies()) {
      await this.loadKeys(); // a rotation since the keys were fetched
      if (!verifies()) return { ok: false, reason: "bad_signature" };
    }
    if (d.to !== this.self) return { ok: false, reason: "not_mine" };
    if (this.seenJti.has(jti)) return { ok: false, reason: "replay" };
    this.seenJti.set(jti, t + this.windowSeconds);
    const id = String(d.id);
    if (this.actedOn.has(id)) return { ok: false, reason: "duplicate" };
    this.actedOn.add(id);
    return { ok: true, id, jti, t };
  }
}

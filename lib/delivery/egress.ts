/**
 * The Hub's one SSRF-safe outbound client (§9.4). Every call:
 *   1. parses the URL (http:/https: only, no userinfo, canonical host)          — egress-target.ts
 *   2. resolves the name now and vets every answer, pinning the first            — egress-resolve.ts
 *   3. POSTs to the pinned IP with Host/SNI = the URL hostname, no redirects,
 *      no proxy, bounded time and response size                                 — egress-send.ts
 *      (on a socket kept alive for that same pinned address, when asked          — egress-agents.ts)
 * Nothing here logs: the caller records the result, and bodies and headers carry credentials.
 */
import { failure, describeError, type EgressOutcome, type EgressResult } from "./egress-result";
import { resolvePinned, systemLookup, type Lookup } from "./egress-resolve";
import { sendPinned } from "./egress-send";
import type { KeptAliveAgents } from "./egress-agents";
import { isAllowlisted, parseEgressTarget } from "./egress-target";

export type { EgressErrorClass, EgressResult } from "./egress-result";
export type { Lookup } from "./egress-resolve";

export interface PostJsonOptions {
  headers: Record<string, string>;
  /** Bounds DNS, connect, TLS and the whole response together. Default 10 000. */
  timeoutMs?: number;
  /** Response body cap; past it the socket is closed (`response_too_large`). Default 64 KiB. */
  maxResponseBytes?: number;
  /** Resolver seam for tests; default getaddrinfo with every address. */
  lookup?: Lookup;
  /**
   * Dev-mode allowlist: exact `scheme://host:port` origins that may reach loopback addresses. Only
   * the loopback refusal is waived; the caller decides when to pass it (never in production).
   */
  allowLoopback?: ReadonlySet<string>;
  /** Trust anchors replacing the system roots (tests, private CAs). */
  ca?: string | Buffer;
  /**
   * Reuse connections through these agents (pushes): sockets are pooled per pinned address, after
   * the same resolution and vetting as always (egress-agents.ts). Default: a fresh connection, closed.
   */
  keepAlive?: KeptAliveAgents;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

/** POST `body` (already-serialised JSON) to `url`. Never throws for anything the network does. */
export function postJson(url: string, body: string, options: PostJsonOptions): Promise<EgressResult> {
  return post(url, body, "application/json", options);
}

/**
 * POST a binary `body` of media type `contentType` to `url` (Web Push's encrypted aes128gcm
 * message, RFC 8291), under every guard `postJson` has. Never throws for anything the network does.
 */
export function postBytes(
  url: string,
  body: Buffer,
  contentType: string,
  options: PostJsonOptions,
): Promise<EgressResult> {
  return post(url, body, contentType, options);
}

/**
 * GET `url` and keep its body (at most `maxResponseBytes`), under every guard a push has — for the
 * callback origin proof (lib/delivery/origin-proof.ts). Never throws for anything the network does.
 */
export function getSmall(url: string, options: PostJsonOptions): Promise<EgressResult> {
  return post(url, "", "text/plain", options, { method: "GET", keepBody: true });
}

/**
 * A request whose answer matters (a Bot Connector call, a token request): POST or PUT `body` of
 * media type `contentType` and keep the response body (at most `maxResponseBytes`), under every
 * guard a push has. Never throws for anything the network does.
 */
export function exchange(
  url: string,
  request: { method: "POST" | "PUT"; body: string; contentType: string },
  options: PostJsonOptions,
): Promise<EgressResult> {
  return post(url, request.body, request.contentType, options, { method: request.method, keepBody: true });
}

async function post(
  url: string,
  body: string | Buffer,
  contentType: string,
  options: PostJsonOptions,
  mode: { method: "GET" | "POST" | "PUT"; keepBody: boolean } = { method: "POST", keepBody: false },
): Promise<EgressResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) throw new RangeError("timeoutMs must be a positive number");
  if (!(maxResponseBytes >= 0)) throw new RangeError("maxResponseBytes must be ≥ 0");

  const started = performance.now(); // a duration, not a clock reading: monotonic is right here
  const stamp = (o: EgressOutcome): EgressResult => ({ ...o, latencyMs: Math.round(performance.now() - started) });

  const target = parseEgressTarget(url);
  if ("refused" in target) return stamp(failure("refused_url", target.refused));

  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  try {
    const devLoopback = isAllowlisted(target.origin, options.allowLoopback);
    const pinned = await resolvePinned(target, options.lookup ?? systemLookup, devLoopback, deadline.signal);
    if (!pinned.ok) return stamp(pinned);
    const sent = await sendPinned(
      target,
      pinned,
      body,
      {
        headers: options.headers,
        contentType,
        maxResponseBytes,
        ca: options.ca,
        agent: options.keepAlive?.agentFor(target.origin, target.scheme === "https:"),
        ...mode,
      },
      deadline.signal,
    );
    return stamp(sent);
  } catch (e) {
    return stamp(failure("network_error", describeError(e)));
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The security headers of every page (docs/security.md "Cookies and page headers"), set in the
 * Node server layer so no route can forget them:
 * - a Content-Security-Policy on every HTML response — the inbox, admin and settings screens,
 *   /signin, next-auth's own pages and the error pages alike — with `frame-ancestors 'none'` and a
 *   fresh per-request nonce instead of `'unsafe-inline'` for scripts. Next reads the nonce from the
 *   policy in the *request* headers and puts it on its own bootstrap scripts, so the policy is set
 *   on the request before Next sees it and on the response as it is written. A route that sets a
 *   stricter policy of its own (the token pages, lib/http/token-page.ts) keeps it;
 * - `Strict-Transport-Security` on every response when the Hub serves HTTPS only (TLS or
 *   trusted-proxy mode); never in dev mode, whose plaintext loopback origin must stay reachable.
 * JSON and other non-HTML responses carry no policy: there is no document to protect.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";

/** Two years; no includeSubDomains — the Hub cannot know what else lives under its parent domain. */
export const HSTS = "max-age=63072000";

/**
 * Nothing loads from another host; scripts only from the Hub and only inline with this request's
 * nonce. Style attributes (React's `style={{…}}`) cannot carry a nonce, so inline styles stay
 * allowed: a style cannot run script. Leaving by a link sends no referrer (Referrer-Policy below).
 */
export function pagePolicy(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self'",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

function contentTypeOf(res: ServerResponse, headers: unknown): string {
  let value: unknown = res.getHeader("content-type");
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2)
      if (String(headers[i]).toLowerCase() === "content-type") value = headers[i + 1];
  } else if (headers && typeof headers === "object") {
    for (const [k, v] of Object.entries(headers as OutgoingHttpHeaders))
      if (k.toLowerCase() === "content-type") value = v;
  }
  return String(value ?? "").toLowerCase();
}

function hasHeader(res: ServerResponse, headers: unknown, name: string): boolean {
  if (res.hasHeader(name)) return true;
  if (Array.isArray(headers)) return headers.some((h, i) => i % 2 === 0 && String(h).toLowerCase() === name);
  if (headers && typeof headers === "object") return Object.keys(headers).some((k) => k.toLowerCase() === name);
  return false;
}

/**
 * Prepares one request: a fresh nonce in the request's policy header (any policy the client sent is
 * replaced — the nonce is ours to choose), and a hook that adds the headers when the response head
 * is written, whichever way Next writes it (`writeHead` directly or implicitly on the first write).
 */
export function applyPageHeaders(req: IncomingMessage, res: ServerResponse, httpsOnly: boolean): void {
  const policy = pagePolicy(randomBytes(16).toString("base64"));
  req.headers["content-security-policy"] = policy;
  delete req.headers["content-security-policy-report-only"];
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    const headers = args.find((a, i) => i > 0 && typeof a === "object" && a !== null);
    if (!res.headersSent) {
      if (httpsOnly) res.setHeader("strict-transport-security", HSTS);
      if (contentTypeOf(res, headers).startsWith("text/html")) {
        if (!hasHeader(res, headers, "content-security-policy")) res.setHeader("content-security-policy", policy);
        if (!hasHeader(res, headers, "referrer-policy")) res.setHeader("referrer-policy", "no-referrer");
        if (!hasHeader(res, headers, "x-content-type-options")) res.setHeader("x-content-type-options", "nosniff");
      }
    }
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse["writeHead"];
}

/**
 * The headers of a page reached from a bearer link (`/e/<token>`, `/slack/bind/<token>`): a tiny
 * self-contained HTML page that loads nothing, is never cached, indexed or framed, and never leaks
 * its URL (the token) in a Referer. One definition for every such page.
 */
const CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** For every response of such a route, redirects included. */
export const TOKEN_PAGE_HEADERS = {
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "x-robots-tag": "noindex",
} as const;

/** The page itself. */
export function tokenPage(html: string, status: number): Response {
  return new Response(html, {
    status,
    headers: { ...TOKEN_PAGE_HEADERS, "content-type": "text/html; charset=utf-8", "content-security-policy": CSP },
  });
}

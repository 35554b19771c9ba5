/**
 * Whether a cookie-authenticated write comes from the Hub's own pages — the one rule for server
 * actions and for `/v1` calls carrying the browser session. A cookie rides along on any request
 * the browser makes, so a write needs the browser's own word that our page sent it:
 *
 * - with an `Origin` header, it must be exactly the Hub's public origin (`MA2H_PUBLIC_URL`); a
 *   `null` or unparsable Origin, or any other origin, is refused. The Host header is not consulted:
 *   the public URL is the only origin the Hub's pages are served from.
 * - without an `Origin`, `Sec-Fetch-Site` must say `same-origin`; a request with neither is refused.
 *
 * Bearer-authenticated requests carry no ambient authority and never reach this check.
 */
export function isSameOrigin(origin: string | null, secFetchSite: string | null, publicUrl: string): boolean {
  if (origin !== null) return originOf(origin) !== null && originOf(origin) === originOf(publicUrl);
  return secFetchSite === "same-origin";
}

function originOf(url: string): string | null {
  try {
    const o = new URL(url).origin;
    return o === "null" ? null : o;
  } catch {
    return null;
  }
}

/**
 * §9.4 step 1: turn a callback URL into a connect target, or refuse it (`refused_url`). Only
 * http:/https:, never userinfo (the rule; `user@host` tricks aim at parser disagreements),
 * and the host becomes either a canonical IP literal or a DNS name — WHATWG `URL` already
 * normalises decimal/octal/hex/short IPv4 spellings, and `parseHostLiteral` re-checks it.
 */
import { parseHostLiteral } from "./ip-policy";

export interface EgressTarget {
  scheme: "http:" | "https:";
  /** The URL hostname without brackets: SNI, certificate name and DNS name. */
  hostname: string;
  /** Set when the host is an IP literal: connect here, resolve nothing. */
  literal: { address: string; family: 4 | 6 } | null;
  port: number;
  /** Path and query; the fragment is never sent. */
  path: string;
  /** The `Host` header: host[:port] exactly as the URL has it. */
  hostHeader: string;
  /** `scheme://host:port`, port explicit — the form the dev allowlist is compared in. */
  origin: string;
}

/** The authority as written, before any parser gets to reinterpret it. */
const AUTHORITY = /^[a-z][a-z0-9+.-]*:[/\\]*([^/\\?#]*)/i;

export function originOf(url: URL): string {
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return `${url.protocol}//${url.hostname}:${port}`;
}

export function parseEgressTarget(raw: string): EgressTarget | { refused: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { refused: "not a valid absolute URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { refused: `scheme ${url.protocol} not allowed` };
  if (url.username !== "" || url.password !== "" || AUTHORITY.exec(raw)?.[1]?.includes("@")) {
    return { refused: "userinfo in URL" };
  }
  const host = parseHostLiteral(url.hostname);
  if (host.kind === "invalid" || url.hostname === "") return { refused: "host is not a valid name or address" };
  return {
    scheme: url.protocol,
    hostname: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    literal: host.kind === "ip" ? { address: host.address, family: host.family } : null,
    port: Number(url.port || (url.protocol === "https:" ? 443 : 80)),
    path: `${url.pathname}${url.search}`,
    hostHeader: url.host,
    origin: originOf(url),
  };
}

/**
 * Is `origin` listed in the dev allowlist? Entries are compared after the same canonicalisation
 * (so `http://h` and `http://h:80` agree); an entry with a path, query or userinfo matches nothing.
 */
export function isAllowlisted(origin: string, allow: ReadonlySet<string> | undefined): boolean {
  if (!allow) return false;
  for (const entry of allow) {
    try {
      const u = new URL(entry);
      if (u.username || u.password || u.search || u.hash || (u.pathname !== "/" && u.pathname !== "")) continue;
      if (originOf(u) === origin) return true;
    } catch {
      /* a malformed entry allows nothing */
    }
  }
  return false;
}

/**
 * Callback origins and path prefixes as parsed values (§9.4). Everything is compared
 * after `new URL` parsing — scheme, lower-cased host, effective port, normalised path — never as a
 * string prefix, so `https://good.example.evil.com` is not `https://good.example`.
 */
import { HubError } from "../protocol/errors";

export interface Origin {
  scheme: "http" | "https";
  /** As WHATWG URL parses it: lower-cased, IDNA-encoded, IPv6 in brackets. */
  host: string;
  port: number;
}

const DEFAULT_PORT = { http: 80, https: 443 } as const;

function schemeOf(url: URL): Origin["scheme"] | null {
  return url.protocol === "https:" ? "https" : url.protocol === "http:" ? "http" : null;
}

function originOf(url: URL, scheme: Origin["scheme"]): Origin {
  return { scheme, host: url.hostname, port: url.port ? Number(url.port) : DEFAULT_PORT[scheme] };
}

/** `scheme://host[:port]` with the port left out when it is the scheme's default. */
export function formatOrigin(o: { scheme: string; host: string; port: number }): string {
  const dflt = o.scheme === "https" ? 443 : o.scheme === "http" ? 80 : -1;
  return `${o.scheme}://${o.host}${o.port === dflt ? "" : `:${o.port}`}`;
}

/** Parses an admin-given origin; anything but `http(s)://host[:port]` is `invalid_field`. */
export function parseOrigin(input: string): Origin {
  const bad = (why: string) => new HubError("invalid_field", `origin ${JSON.stringify(input)} is invalid: ${why}`);
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw bad("expected scheme://host[:port]");
  }
  const scheme = schemeOf(url);
  if (!scheme) throw bad("the scheme must be http or https");
  if (url.username || url.password) throw bad("it must not carry userinfo");
  if (url.pathname !== "/" || url.search || url.hash || /[?#]/.test(input)) {
    throw bad("it must not carry a path, query or fragment (use --path-prefix)");
  }
  if (!url.hostname) throw bad("it has no host");
  return originOf(url, scheme);
}

/** Validates a path prefix: absolute, already normalised as a URL path; a trailing `/` is dropped. */
export function parsePathPrefix(input: string | undefined): string {
  const prefix = input ?? "/";
  const bad = (why: string) =>
    new HubError("invalid_field", `path prefix ${JSON.stringify(prefix)} is invalid: ${why}`);
  if (!prefix.startsWith("/") || prefix.startsWith("//")) throw bad("it must start with a single /");
  let parsed: string;
  try {
    parsed = new URL(prefix, "http://prefix.invalid").pathname;
  } catch {
    throw bad("it is not a URL path");
  }
  if (parsed !== prefix) throw bad(`it must be a normalised path without query or dot segments (${parsed}?)`);
  return prefix.length > 1 ? prefix.replace(/\/+$/, "") || "/" : prefix;
}

/** True when `pathname` is the prefix itself or below it at a segment boundary; "/" matches all. */
export function pathWithin(pathname: string, prefix: string): boolean {
  if (prefix === "/") return true;
  return pathname === prefix || pathname.startsWith(`${prefix}/`);
}

/** A callback URL as parsed values, or null when it is not an http(s) URL without userinfo. */
export function parseCallbackUrl(input: string): (Origin & { pathname: string }) | null {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return null;
  }
  const scheme = schemeOf(url);
  if (!scheme || !url.hostname || url.username || url.password) return null;
  return { ...originOf(url, scheme), pathname: url.pathname };
}

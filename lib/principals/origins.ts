/**
 * Callback origins and path prefixes as parsed values (§9.4). Everything is compared
 * after `new URL` parsing — scheme, lower-cased host, effective port, normalised path — never as a
 * string prefix, so `https://good.example.evil.com` is not `https://good.example`.
 */
import { HubError } from "@ma2h/protocol/errors";

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

/**
 * Why a URL path cannot be judged against a bound path prefix, or null when it is in normal form.
 * A receiver (or a proxy in front of it) may decode `%2e`/`%2f`/`%5c`, read `\\` as `/`, drop `;`
 * parameters or collapse `//`, and so serve a path other than the one we compared: any of them, or a
 * path the URL parser had to rewrite (dot segments, tabs), is refused rather than interpreted.
 */
function pathProblem(raw: string, parsed: string): string | null {
  if (raw.includes("\\")) return "a backslash";
  if ((raw === "" ? "/" : raw) !== parsed) return "dot segments or characters the URL parser rewrites";
  if (/%2e/i.test(parsed)) return "an encoded dot (%2e)";
  if (/%2f/i.test(parsed)) return "an encoded slash (%2f)";
  if (/%5c/i.test(parsed)) return "an encoded backslash (%5c)";
  if (parsed.includes(";")) return "a ; parameter";
  if (parsed.includes("//")) return "an empty segment";
  return null;
}

/** Does `s` hold a C0 control character or DEL (or, with `space`, a space)? */
function hasControl(s: string, space = false): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || (space && c === 0x20)) return true;
  }
  return false;
}

/** The decoded segments of a normal-form path; a single trailing `/` adds no segment. */
function decodedSegments(path: string): string[] | null {
  const parts = path.split("/").slice(1);
  if (parts.at(-1) === "") parts.pop();
  try {
    const out = parts.map((p) => decodeURIComponent(p));
    // A decoded control character is no name a receiver serves under a prefix.
    return out.some((seg) => hasControl(seg)) ? null : out;
  } catch {
    return null; // malformed percent-encoding
  }
}

/** Validates a path prefix: absolute, in normal form (see pathProblem); a trailing `/` is dropped. */
export function parsePathPrefix(input: string | undefined): string {
  const prefix = input ?? "/";
  const bad = (why: string) =>
    new HubError("invalid_field", `path prefix ${JSON.stringify(prefix)} is invalid: ${why}`);
  if (!prefix.startsWith("/") || prefix.startsWith("//")) throw bad("it must start with a single /");
  if (/[?#\s]/.test(prefix) || hasControl(prefix))
    throw bad("it must be a path only, without query, fragment or spaces");
  let parsed: string;
  try {
    parsed = new URL(prefix, "http://prefix.invalid").pathname;
  } catch {
    throw bad("it is not a URL path");
  }
  const problem = pathProblem(prefix, parsed);
  if (problem) throw bad(`it must be a normalised path; it has ${problem} (${parsed}?)`);
  if (!decodedSegments(parsed)) throw bad("it has malformed percent-encoding");
  return prefix.length > 1 ? prefix.replace(/\/+$/, "") || "/" : prefix;
}

/** A callback URL's path as the binding check sees it. */
export interface CallbackPath {
  pathname: string;
  /** Decoded segments; null when the path is not in normal form (then only a `/` binding covers it). */
  segments: string[] | null;
  /** Why `segments` is null. */
  problem?: string;
}

/**
 * True when the path is the prefix itself or below it, compared on decoded segment boundaries;
 * `/` covers every path. A path not in normal form lies within no narrower prefix.
 */
export function pathWithin(path: CallbackPath, prefix: string): boolean {
  if (prefix === "/") return true;
  const own = decodedSegments(prefix);
  if (!path.segments || !own || path.segments.length < own.length) return false;
  return own.every((seg, i) => path.segments?.[i] === seg);
}

/** The path of `input` as written: after the authority, before `?` or `#`. */
function rawPathOf(input: string): string {
  const m = /^[a-z][a-z0-9+.-]*:[/\\]*[^/\\?#]*([^?#]*)/i.exec(input);
  return m?.[1] ?? "";
}

/** A callback URL as parsed values, or null when it is not an http(s) URL without userinfo. */
export function parseCallbackUrl(input: string): (Origin & CallbackPath) | null {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return null;
  }
  const scheme = schemeOf(url);
  if (!scheme || !url.hostname || url.username || url.password) return null;
  // The parser strips surrounding spaces and drops tabs and newlines anywhere: such a URL is not
  // what it looks like, so it is judged as not in normal form.
  const problem = hasControl(input, true)
    ? "spaces or control characters"
    : (pathProblem(rawPathOf(input), url.pathname) ??
      (decodedSegments(url.pathname) ? null : "malformed or control-character percent-encoding"));
  const path: CallbackPath = problem
    ? { pathname: url.pathname, segments: null, problem }
    : { pathname: url.pathname, segments: decodedSegments(url.pathname) };
  return { ...originOf(url, scheme), ...path };
}

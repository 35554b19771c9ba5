/**
 * Which `X-Forwarded-*` headers reach Next (docs/security.md "Forwarded headers"). In
 * trusted-proxy mode they are believed only from a TCP peer inside MA2H_TRUSTED_PROXIES; from any
 * other peer — and in TLS or dev mode, where no proxy is trusted — they are removed before Next or
 * the transport gate sees them, so a client cannot claim `https`, another host or another address.
 * Afterwards `X-Forwarded-For` holds exactly one address, the client as far as we can tell: the
 * nearest hop outside the trusted ranges, or the socket's peer.
 */
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import { addressInAny, type Cidr } from "../lib/net/cidr";

/** Everything a client could use to speak for a proxy; RFC 7239 `Forwarded` is never read, so never passed. */
const FORWARDED_HEADERS = new Set([
  "x-forwarded-proto",
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-port",
  "x-forwarded-ssl",
  "x-forwarded-scheme",
  "x-real-ip",
  "forwarded",
]);

function strip(req: IncomingMessage): void {
  for (const name of FORWARDED_HEADERS) delete req.headers[name];
  const raw: string[] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    if (!FORWARDED_HEADERS.has(name.toLowerCase())) raw.push(name, req.rawHeaders[i + 1] as string);
  }
  req.rawHeaders.splice(0, req.rawHeaders.length, ...raw);
}

/** The client behind a trusted peer: walk the chain from the right past the trusted hops. */
function clientBehind(chainHeader: string | string[] | undefined, peer: string, trusted: readonly Cidr[]): string {
  const chain = (Array.isArray(chainHeader) ? chainHeader.join(",") : (chainHeader ?? ""))
    .split(",")
    .map((hop) => hop.trim())
    .filter(Boolean);
  let client = peer;
  for (let i = chain.length - 1; i >= 0; i--) {
    const hop = chain[i] as string;
    if (isIP(hop) === 0) break; // not an address a proxy recorded: stop at the last one we could read
    client = hop;
    if (!addressInAny(hop, trusted)) break;
  }
  return client;
}

/**
 * Screens the request's forwarded headers in place. `trusted` is the MA2H_TRUSTED_PROXIES ranges in
 * trusted-proxy mode, null otherwise (no peer is a proxy).
 */
export function screenForwarded(req: IncomingMessage, trusted: readonly Cidr[] | null): void {
  const peer = req.socket.remoteAddress ?? "";
  if (trusted !== null && peer !== "" && addressInAny(peer, trusted)) {
    req.headers["x-forwarded-for"] = clientBehind(req.headers["x-forwarded-for"], peer, trusted);
    delete req.headers.forwarded;
    return;
  }
  strip(req);
  if (peer !== "") req.headers["x-forwarded-for"] = peer;
}

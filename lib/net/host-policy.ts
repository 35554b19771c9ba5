/**
 * A list of hosts an operator allows, as in MA2H_CALLBACK_ORIGIN_POLICY: comma-separated entries,
 * each a host suffix (`*.example.com`: any host strictly below example.com), an exact host name
 * (`hooks.example.com`), or a CIDR range (`203.0.113.0/24`, `2001:db8::/32`, a bare address) that an
 * IP-literal host must lie in. Pure. Host names are compared after WHATWG URL parsing (lower-cased,
 * IDNA-encoded), the same form a parsed origin's host has; an IP literal never matches a name entry
 * and a name never matches a range (its addresses are the egress guard's business, at send time).
 * An entry prefixed `shared:` (`shared:*.relay.example`) is allowed like any other and, besides, may
 * be bound by several accounts at once (lib/principals/bindings.ts: an origin is otherwise one
 * account's unless another proves control of it).
 */
import { addressInAny, type Cidr, parseCidr } from "./cidr";
import { parseHostLiteral } from "./ip-parse";

export interface HostPolicy {
  /** The entries as the operator wrote them, for messages. */
  entries: string[];
  suffixes: string[];
  names: string[];
  ranges: Cidr[];
  /** The `shared:` entries again: hosts several accounts may bind. */
  shared: { suffixes: string[]; names: string[]; ranges: Cidr[] };
}

/** The WHATWG form of a host name, or null when it is not one (an IP, a port, a path, junk). */
function hostName(text: string): string | null {
  if (!/^[^\s/\\:@?#[\]]+$/.test(text)) return null;
  let host: string;
  try {
    const url = new URL(`https://${text}/`);
    if (url.port || url.username || url.password || `${url.host}` !== url.hostname) return null;
    host = url.hostname;
  } catch {
    return null;
  }
  return parseHostLiteral(host).kind === "name" && /^[a-z0-9.-]+$/.test(host) && !host.startsWith(".")
    ? host.replace(/\.$/, "")
    : null;
}

/** Parses the list; throws naming the first malformed entry (a policy that cannot be read allows nothing). */
export function parseHostPolicy(text: string): HostPolicy {
  const policy: HostPolicy = {
    entries: [],
    suffixes: [],
    names: [],
    ranges: [],
    shared: { suffixes: [], names: [], ranges: [] },
  };
  for (const raw of text.split(",")) {
    const written = raw.trim();
    if (!written) continue;
    policy.entries.push(written);
    const shared = written.startsWith("shared:");
    const entry = shared ? written.slice("shared:".length).trim() : written;
    const lists = shared ? [policy, policy.shared] : [policy];
    const range = parseCidr(entry);
    if (range) {
      for (const l of lists) l.ranges.push(range);
      continue;
    }
    const name = hostName(entry.startsWith("*.") ? entry.slice(2) : entry);
    if (!name) {
      throw new Error(`${JSON.stringify(written)} is neither a host suffix (*.example.com), a host name nor a CIDR`);
    }
    for (const l of lists) (entry.startsWith("*.") ? l.suffixes : l.names).push(name);
  }
  return policy;
}

/** May several accounts bind `host`? Only a `shared:` entry says so. */
export function hostShared(policy: HostPolicy, host: string): boolean {
  return hostAllowed({ ...policy.shared, entries: [], shared: policy.shared }, host);
}

/** Does `host` (a parsed URL host: lower-cased, IPv6 in brackets) satisfy the policy? */
export function hostAllowed(policy: HostPolicy, host: string): boolean {
  const literal = parseHostLiteral(host);
  if (literal.kind === "ip") return addressInAny(literal.address, policy.ranges);
  if (literal.kind !== "name") return false;
  const name = host.replace(/\.$/, "");
  return policy.names.includes(name) || policy.suffixes.some((s) => name.endsWith(`.${s}`));
}

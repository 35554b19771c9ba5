/**
 * §9.4: which resolved addresses the Hub may connect to. Pure. Fail closed: anything that is
 * not a well-formed IP (per both node:net `isIP` and our strict parsers) is refused; every IPv6 form
 * that carries an IPv4 address is judged by that IPv4 address; IPv6 outside global unicast
 * 2000::/3 is refused.
 */
import { isIP } from "node:net";
import { type Cidr, inV4, inV6, parseCidr } from "../net/cidr";
import { formatIPv4, formatIPv6, parseIPv4, parseIPv6 } from "../net/ip-parse";

export { parseHostLiteral, type HostLiteral } from "../net/ip-parse";

export interface AddressVerdict {
  allowed: boolean;
  reason?: string;
}

const refuse = (reason: string): AddressVerdict => ({ allowed: false, reason });
const ALLOWED: AddressVerdict = { allowed: true };

/** Cloud metadata / platform endpoints (AWS, GCP, Azure, Oracle, Alibaba), checked first for a clear reason. */
const METADATA_V4 = new Set([
  "169.254.169.254",
  "169.254.170.2",
  "169.254.169.123",
  "169.254.169.253",
  "100.100.100.200",
  "192.0.0.192",
  "168.63.129.16",
]);
const METADATA_V6 = new Set(["fd00:ec2::254", "fd00:ec2::253", "fd00:ec2::123"]);

const V4_RULES: Array<[string, string]> = [
  ["0.0.0.0/8", "unspecified / this network"],
  ["10.0.0.0/8", "private (RFC 1918)"],
  ["100.64.0.0/10", "carrier-grade NAT (RFC 6598)"],
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "link-local"],
  ["172.16.0.0/12", "private (RFC 1918)"],
  ["192.0.0.0/24", "IETF protocol assignments"],
  ["192.0.2.0/24", "documentation (TEST-NET-1)"],
  ["192.88.99.0/24", "6to4 relay anycast"],
  ["192.168.0.0/16", "private (RFC 1918)"],
  ["198.18.0.0/15", "benchmarking"],
  ["198.51.100.0/24", "documentation (TEST-NET-2)"],
  ["203.0.113.0/24", "documentation (TEST-NET-3)"],
  ["224.0.0.0/4", "multicast"],
  ["255.255.255.255/32", "broadcast"],
  ["240.0.0.0/4", "reserved"],
];

const V6_RULES: Array<[string, string]> = [
  ["64:ff9b:1::/48", "NAT64 local-use (RFC 8215)"],
  ["100::/64", "discard-only (RFC 6666)"],
  ["2001::/32", "Teredo"],
  ["2001:db8::/32", "documentation"],
  ["2001::/23", "IETF protocol assignments"],
  ["3fff::/20", "documentation (RFC 9637)"],
  ["5f00::/16", "SRv6 SIDs (RFC 9602)"],
  ["fc00::/7", "unique-local"],
  ["fec0::/10", "site-local"],
  ["fe80::/10", "link-local"],
  ["ff00::/8", "multicast"],
];

function rule(text: string, family: 4 | 6) {
  const range = parseCidr(text);
  if (!range || range.family !== family) throw new Error(`bad rule ${text}`);
  return range;
}
const v4Rules = V4_RULES.map(([c, reason]) => ({ ...(rule(c, 4) as Extract<Cidr, { family: 4 }>), reason }));
const v6Rules = V6_RULES.map(([c, reason]) => ({ ...(rule(c, 6) as Extract<Cidr, { family: 6 }>), reason }));

function classifyV4(v: number): AddressVerdict {
  if (METADATA_V4.has(formatIPv4(v))) return refuse("cloud metadata");
  const hit = v4Rules.find((r) => inV4(v, r.base, r.bits));
  return hit ? refuse(hit.reason) : ALLOWED;
}

const zeros = (b: Uint8Array, from: number, to: number) => b.subarray(from, to).every((x) => x === 0);
const v4At = (b: Uint8Array, at: number) =>
  ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
const NAT64 = parseIPv6("64:ff9b::")!;

/** The IPv4 address an IPv6 address carries, and the name of the form, when it carries one. */
function embeddedV4(b: Uint8Array): { form: string; v4: number } | null {
  if (zeros(b, 0, 10) && b[10] === 0xff && b[11] === 0xff) return { form: "IPv4-mapped", v4: v4At(b, 12) };
  if (zeros(b, 0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(b, 10, 12))
    return { form: "IPv4-translated", v4: v4At(b, 12) };
  if (zeros(b, 0, 12)) return { form: "IPv4-compatible", v4: v4At(b, 12) };
  if (inV6(b, NAT64, 96)) return { form: "NAT64", v4: v4At(b, 12) };
  if (b[0] === 0x20 && b[1] === 0x02) return { form: "6to4", v4: v4At(b, 2) }; // bits 16–47
  return null;
}

function classifyV6(b: Uint8Array, text: string): AddressVerdict {
  if (zeros(b, 0, 16)) return refuse("unspecified");
  if (zeros(b, 0, 15) && b[15] === 1) return refuse("loopback");
  const embedded = embeddedV4(b);
  if (embedded) {
    const inner = classifyV4(embedded.v4);
    return inner.allowed ? ALLOWED : refuse(`${embedded.form} ${formatIPv4(embedded.v4)}: ${inner.reason}`);
  }
  if (METADATA_V6.has(text)) return refuse("cloud metadata");
  const hit = v6Rules.find((r) => inV6(b, r.base, r.bits));
  if (hit) return refuse(hit.reason);
  if ((b[0]! & 0xe0) !== 0x20) return refuse("reserved (outside global unicast 2000::/3)");
  // ISATAP interface id (::0:5efe:a.b.c.d / ::200:5efe:a.b.c.d) tunnels to the embedded IPv4.
  if ((b[8] === 0 || b[8] === 2) && b[9] === 0 && b[10] === 0x5e && b[11] === 0xfe) {
    const inner = classifyV4(v4At(b, 12));
    if (!inner.allowed) return refuse(`ISATAP ${formatIPv4(v4At(b, 12))}: ${inner.reason}`);
  }
  return ALLOWED;
}

/** §9.4: may the Hub open a connection to `ip`? */
export function classifyAddress(ip: string): AddressVerdict {
  const bare = ip.includes(":") ? ip.replace(/%[^%]+$/, "") : ip; // a zone id only on IPv6
  if (isIP(bare) === 0) return refuse("not an IP address");
  const v4 = parseIPv4(bare);
  if (v4 !== null) return classifyV4(v4);
  const v6 = parseIPv6(bare);
  if (!v6) return refuse("not an IP address");
  return classifyV6(v6, formatIPv6(v6));
}

/** Exactly 127.0.0.0/8 or ::1 — the only ranges the dev-mode origin allowlist may waive. */
export function isLoopbackAddress(ip: string): boolean {
  const v4 = parseIPv4(ip);
  if (v4 !== null) return v4 >>> 24 === 127;
  const v6 = parseIPv6(ip);
  return !!v6 && !ip.includes("%") && zeros(v6, 0, 15) && v6[15] === 1;
}

/**
 * CIDR ranges as parsed values: one parser and one membership test for every list of networks the
 * Hub reads — the §9.4 egress rules, the trusted proxies, the callback-origin policy. Pure. Strict:
 * an address is read only in its canonical text form (lib/net/ip-parse.ts), a prefix length must be
 * a plain decimal within the family's width, and anything else is not a range (fail closed).
 */
import { isIP } from "node:net";
import { parseIPv4, parseIPv6 } from "./ip-parse";

export type Cidr = { family: 4; base: number; bits: number } | { family: 6; base: Uint8Array; bits: number };

/** `a.b.c.d/n` or `v6::/n` (a bare address is its own /32 or /128); null when malformed. */
export function parseCidr(text: string): Cidr | null {
  const [addr = "", bitsText, extra] = text.trim().split("/");
  if (extra !== undefined) return null;
  if (bitsText !== undefined && !/^\d{1,3}$/.test(bitsText)) return null;
  const v4 = parseIPv4(addr);
  if (v4 !== null) {
    const bits = bitsText === undefined ? 32 : Number(bitsText);
    return bits <= 32 ? { family: 4, base: v4, bits } : null;
  }
  const v6 = parseIPv6(addr);
  if (v6 !== null) {
    const bits = bitsText === undefined ? 128 : Number(bitsText);
    return bits <= 128 ? { family: 6, base: v6, bits } : null;
  }
  return null;
}

export function inV4(value: number, base: number, bits: number): boolean {
  return bits === 0 || value >>> (32 - bits) === base >>> (32 - bits);
}

export function inV6(b: Uint8Array, base: Uint8Array, bits: number): boolean {
  for (let i = 0; i < 16 && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((b[i]! & mask) !== (base[i]! & mask)) return false;
  }
  return true;
}

/** The 32-bit IPv4 value an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) carries, else null. */
function mappedV4(b: Uint8Array): number | null {
  for (let i = 0; i < 10; i++) if (b[i] !== 0) return null;
  if (b[10] !== 0xff || b[11] !== 0xff) return null;
  return ((b[12]! << 24) | (b[13]! << 16) | (b[14]! << 8) | b[15]!) >>> 0;
}

/**
 * Is `ip` (a socket's peer address or a resolved address) inside `range`? A dual-stack socket
 * reports an IPv4 peer as `::ffff:a.b.c.d`; it is judged as that IPv4 address.
 */
export function addressIn(ip: string, range: Cidr): boolean {
  const bare = ip.includes(":") ? ip.replace(/%[^%]+$/, "") : ip;
  if (isIP(bare) === 0) return false;
  const v4 = parseIPv4(bare);
  if (v4 !== null) return range.family === 4 && inV4(v4, range.base, range.bits);
  const v6 = parseIPv6(bare);
  if (!v6) return false;
  if (range.family === 6) return inV6(v6, range.base, range.bits);
  const carried = mappedV4(v6);
  return carried !== null && inV4(carried, range.base, range.bits);
}

/** True when `ip` lies in any of `ranges`. */
export function addressInAny(ip: string, ranges: readonly Cidr[]): boolean {
  return ranges.some((r) => addressIn(ip, r));
}

/**
 * A comma-separated list of ranges (MA2H_TRUSTED_PROXIES); throws naming the first malformed entry,
 * and on a list with no entry at all — a list that cannot be read trusts no one (fail closed).
 */
export function parseCidrList(text: string): Cidr[] {
  const ranges: Cidr[] = [];
  for (const raw of text.split(",")) {
    const entry = raw.trim();
    if (!entry) continue;
    const range = parseCidr(entry);
    if (!range) throw new Error(`${JSON.stringify(entry)} is not a CIDR range (a.b.c.d/n or v6::/n)`);
    ranges.push(range);
  }
  if (ranges.length === 0) throw new Error("the list names no range");
  return ranges;
}

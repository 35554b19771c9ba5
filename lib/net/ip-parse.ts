/**
 * Small, strict IP parsers for §9.4 egress vetting. Two jobs:
 *  - `parseIPv4` / `parseIPv6` read the canonical text a resolver or the WHATWG URL serialiser gives
 *    us, and nothing looser (no leading zeros, no short forms) — anything else is "not an IP".
 *  - `parseHostLiteral` reads a URL host the liberal way browsers and `inet_aton` do (decimal
 *    `2130706433`, octal `0177.0.0.1`, hex `0x7f.1`, short `127.1`, trailing dot) and returns the one
 *    canonical address those spellings mean, so no alternate encoding slips past classification.
 */

/** Strict dotted quad → 32-bit value, or null. */
export function parseIPv4(text: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!m) return null;
  let value = 0;
  for (const part of m.slice(1)) {
    if (part.length > 1 && part.startsWith("0")) return null; // 010 could mean 8: ambiguous, refuse
    const n = Number(part);
    if (n > 255) return null;
    value = value * 256 + n;
  }
  return value;
}

export function formatIPv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join(".");
}

/** Hex groups of one side of "::"; a dotted IPv4 tail only where the address ends. */
function groups(text: string, allowV4Tail: boolean): number[] | null {
  if (text === "") return [];
  const out: number[] = [];
  const pieces = text.split(":");
  for (const [i, piece] of pieces.entries()) {
    if (allowV4Tail && i === pieces.length - 1 && piece.includes(".")) {
      const v4 = parseIPv4(piece);
      if (v4 === null) return null;
      out.push(v4 >>> 16, v4 & 0xffff);
    } else if (/^[0-9a-f]{1,4}$/i.test(piece)) {
      out.push(parseInt(piece, 16));
    } else {
      return null;
    }
  }
  return out;
}

/** RFC 4291 text → 16 bytes, or null. A `%zone` suffix (link-local answers carry one) is ignored. */
export function parseIPv6(text: string): Uint8Array | null {
  const s = text.replace(/%[^%]+$/, "");
  if (!s.includes(":")) return null;
  const dbl = s.indexOf("::");
  let words: number[];
  if (dbl < 0) {
    const all = groups(s, true);
    if (all?.length !== 8) return null;
    words = all;
  } else {
    if (s.indexOf("::", dbl + 1) >= 0) return null;
    const head = groups(s.slice(0, dbl), false);
    const tail = groups(s.slice(dbl + 2), true);
    if (!head || !tail || head.length + tail.length > 7) return null;
    words = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  }
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[2 * i] = w >>> 8;
    bytes[2 * i + 1] = w & 255;
  });
  return bytes;
}

/** RFC 5952 text: lowercase, no leading zeros, the longest run (≥ 2) of zero groups as "::". */
export function formatIPv6(bytes: Uint8Array): string {
  const words = Array.from({ length: 8 }, (_, i) => (bytes[2 * i]! << 8) | bytes[2 * i + 1]!);
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = words.map((w) => w.toString(16));
  if (best < 0) return hex.join(":");
  return `${hex.slice(0, best).join(":")}::${hex.slice(best + bestLen).join(":")}`;
}

/** One inet_aton / WHATWG IPv4 part: 0x-hex, 0-octal or decimal. */
function ipv4Number(part: string): number | null {
  if (/^0x[0-9a-f]*$/i.test(part)) return part.length === 2 ? 0 : parseInt(part.slice(2), 16);
  if (/^0[0-7]+$/.test(part)) return parseInt(part, 8);
  if (/^(0|[1-9]\d*)$/.test(part)) return Number(part);
  return null;
}

export type HostLiteral = { kind: "ip"; address: string; family: 4 | 6 } | { kind: "name" } | { kind: "invalid" };

/**
 * A URL host (`[v6]` bracketed or bare) → the canonical IP it denotes, "name" when it is a DNS
 * name, or "invalid" when it ends in a number yet is no valid address (WHATWG fails those too).
 */
export function parseHostLiteral(host: string): HostLiteral {
  const bracketed = host.startsWith("[") && host.endsWith("]");
  if (bracketed || host.includes(":")) {
    const inner = bracketed ? host.slice(1, -1) : host;
    const bytes = inner.includes("%") ? null : parseIPv6(inner); // zone ids are not URL hosts
    return bytes ? { kind: "ip", address: formatIPv6(bytes), family: 6 } : { kind: "invalid" };
  }
  const parts = host.split(".");
  if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
  const last = parts[parts.length - 1] ?? "";
  if (!/^\d+$/.test(last) && ipv4Number(last) === null) return { kind: "name" };
  if (parts.length > 4) return { kind: "invalid" };
  const numbers = parts.map(ipv4Number);
  if (numbers.some((n) => n === null)) return { kind: "invalid" };
  const nums = numbers as number[];
  const tail = nums.pop()!;
  if (nums.some((n) => n > 255) || tail >= 256 ** (4 - nums.length)) return { kind: "invalid" };
  const value = nums.reduce((acc, n, i) => acc + n * 256 ** (3 - i), 0) + tail;
  return { kind: "ip", address: formatIPv4(value), family: 4 };
}

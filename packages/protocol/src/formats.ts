/**
 * The two JSON Schema `format`s the MA2H schemas use, as plain predicates, so the zod mirrors accept
 * exactly what the official Draft 2020-12 validators (Ajv + ajv-formats, "full" mode) accept:
 *
 * - `date-time` — RFC 3339 §5.6 `date-time`, with the leniencies the reference validator has: `T`,
 *   `t` or a whitespace separator, a `z`/`Z` or `±hh`, `±hhmm`, `±hh:mm` offset (a zone is required),
 *   calendar-checked dates, and a leap second only where it falls on 23:59 UTC.
 * - `uri` — an absolute RFC 3986 URI (scheme required) in ASCII, with a non-empty hier-part; like
 *   the reference, `scheme:/` may open an (empty) authority, so `https://host:abc/` passes as a path.
 *   Egress code must still parse and vet a URL before using it (§9.4).
 *
 * `format.test.ts` checks both against ajv-formats on a generated corpus.
 */

// Year, month, day, separator, hour, minute, second(.fraction), then Z or a numeric offset.
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt\s](\d{2}):(\d{2}):(\d{2}(?:\.\d+)?)(?:[Zz]|([+-])(\d{2})(?::?(\d{2}))?)$/;

interface DateTimeParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** Signed offset east of UTC, in minutes. */
  offsetMinutes: number;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function dateTimeParts(value: string): DateTimeParts | null {
  const m = DATE_TIME.exec(value);
  if (!m) return null;
  const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const second = Number(m[6]);
  const sign = m[7] === "-" ? -1 : 1;
  const offH = Number(m[8] ?? 0);
  const offM = Number(m[9] ?? 0);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (offH > 23 || offM > 59) return null;
  if (hour > 23 || minute > 59 || second >= 60) {
    // RFC 3339 §5.7: second 60 exists only for a leap second, i.e. at 23:59 UTC. The offset is
    // removed field by field (minutes borrow one hour), exactly as the reference validator does.
    const utcMinute = minute - sign * offM;
    const utcHour = hour - sign * offH - (utcMinute < 0 ? 1 : 0);
    const lastMinute = (utcHour === 23 || utcHour === -1) && (utcMinute === 59 || utcMinute === -1);
    if (!lastMinute || second >= 61) return null;
  }
  return { year, month, day, hour, minute, second, offsetMinutes: sign * (offH * 60 + offM) };
}

/** True iff `value` is a JSON Schema `date-time` (RFC 3339). */
export function isDateTime(value: string): boolean {
  return dateTimeParts(value) !== null;
}

/**
 * Milliseconds since the epoch for an RFC 3339 `date-time`, or null when it is not one. Keeps
 * sub-millisecond fractions (as a fractional number) so "strictly in the future" stays exact.
 */
export function dateTimeToMillis(value: string): number | null {
  const p = dateTimeParts(value);
  if (!p) return null;
  const d = new Date(0);
  d.setUTCFullYear(p.year, p.month - 1, p.day); // not Date.UTC: it maps years 0–99 to 19xx
  d.setUTCHours(p.hour, p.minute, 0, 0);
  return d.getTime() + p.second * 1000 - p.offsetMinutes * 60_000;
}

// RFC 3986 §2–§3 character classes.
const UNRESERVED_SUBDELIMS = "A-Za-z0-9\\-._~!$&'()*+,;=";
const PCT = "%[0-9A-Fa-f]{2}";
const PCHAR = `(?:[${UNRESERVED_SUBDELIMS}:@]|${PCT})`;
const QUERY_OR_FRAGMENT = `(?:[${UNRESERVED_SUBDELIMS}:@/?]|${PCT})*`;
const USERINFO = `(?:[${UNRESERVED_SUBDELIMS}:]|${PCT})*`;
const REG_NAME = `(?:[${UNRESERVED_SUBDELIMS}]|${PCT})*`;
const URI = new RegExp(
  "^[A-Za-z][A-Za-z0-9+\\-.]*:" + // scheme
    "(?:" +
    // authority path-abempty; like the reference validator, a single leading "/" is tolerated
    `//?(?:${USERINFO}@)?(?:\\[([^\\]/]*)\\]|${REG_NAME})(?::\\d*)?(?:/${PCHAR}*)*` +
    `|/(?:${PCHAR}+(?:/${PCHAR}*)*)?` + // path-absolute
    `|${PCHAR}+(?:/${PCHAR}*)*` + // path-rootless
    ")" +
    `(?:\\?${QUERY_OR_FRAGMENT})?(?:#${QUERY_OR_FRAGMENT})?$`,
);
const IP_FUTURE = new RegExp(`^[Vv][0-9A-Fa-f]+\\.[${UNRESERVED_SUBDELIMS}:]+$`);
const H16 = /^[0-9A-Fa-f]{1,4}$/;

function isIpv4(value: string): boolean {
  const parts = value.split(".");
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}

/** RFC 3986 §3.2.2 IPv6address: eight 16-bit groups, one optional `::`, an optional IPv4 tail. */
function isIpv6(value: string): boolean {
  let text = value;
  const lastColon = text.lastIndexOf(":");
  if (lastColon < 0) return false;
  const tail = text.slice(lastColon + 1);
  if (tail.includes(".")) {
    if (!isIpv4(tail)) return false;
    text = `${text.slice(0, lastColon + 1)}0:0`; // the IPv4 tail stands for two groups
  }
  const halves = text.split("::");
  if (halves.length > 2) return false;
  const groups = halves.map((h) => (h === "" ? [] : h.split(":")));
  if (!groups.every((g) => g.every((x) => H16.test(x)))) return false;
  const count = groups.reduce((n, g) => n + g.length, 0);
  return halves.length === 2 ? count <= 7 : count === 8;
}

/** True iff `value` is a JSON Schema `uri`: an absolute RFC 3986 URI. */
export function isUri(value: string): boolean {
  const m = URI.exec(value);
  if (!m) return false;
  const ipLiteral = m[1];
  return ipLiteral === undefined || isIpv6(ipLiteral) || IP_FUTURE.test(ipLiteral);
}

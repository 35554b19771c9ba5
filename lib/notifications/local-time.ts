/**
 * Wall-clock time in a person's IANA time zone, for quiet hours and digest boundaries (* docs/notifications.md "Preferences"). Pure: no clock, no database — `now` is always passed in.
 * Local times that a DST change skips or repeats are read as Temporal's "compatible"
 * disambiguation does: a skipped time (spring forward) moves forward by the gap, a repeated one
 * (fall back) is its earlier occurrence.
 */
import { processWide } from "../process-wide";

/** "HH:MM", 00:00–23:59. */
export const HH_MM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Whether `tz` is an IANA time zone this runtime knows (the zod shape validates with this). */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return tz.length > 0;
  } catch {
    return false;
  }
}

/** Minutes after local midnight of an "HH:MM". */
export function minutesOf(hhmm: string): number {
  const m = HH_MM.exec(hhmm);
  if (!m) throw new Error(`not an HH:MM time: ${hhmm}`);
  return Number(m[1]) * 60 + Number(m[2]);
}

interface Wall {
  year: number;
  month: number; // 1–12
  day: number;
  hour: number;
  minute: number;
}

const formatters = () => processWide("ma2h.local-time-formatters", () => new Map<string, Intl.DateTimeFormat>());

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters().get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters().set(tz, f);
  }
  return f;
}

/** The wall-clock reading of instant `t` (ms) in `tz`. */
export function wallAt(t: number, tz: string): Wall & { second: number } {
  const parts = new Map<string, number>();
  for (const p of formatter(tz).formatToParts(new Date(t)))
    if (p.type !== "literal") parts.set(p.type, Number(p.value));
  const part = (k: string) => parts.get(k) ?? 0;
  return {
    year: part("year"),
    month: part("month"),
    day: part("day"),
    hour: part("hour") % 24,
    minute: part("minute"),
    second: part("second"),
  };
}

/** The zone's offset from UTC at instant `t`, in ms (whole seconds; sub-second parts dropped). */
function offsetAt(t: number, tz: string): number {
  const w = wallAt(t, tz);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - Math.floor(t / 1000) * 1000;
}

const DAY_MS = 86_400_000;

/** The instant a local wall time happens in `tz` (a day's date may overflow: day 32 is next month). */
export function instantOf(w: Wall, tz: string): number {
  const naive = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute);
  // The offsets a day either side bound the ones that can apply (zones change at most once a day).
  const before = offsetAt(naive - DAY_MS, tz);
  const after = offsetAt(naive + DAY_MS, tz);
  const valid = [...new Set([before, after])].map((o) => naive - o).filter((t) => offsetAt(t, tz) === naive - t);
  if (valid.length > 0) return Math.min(...valid); // repeated (fall back): the earlier
  return naive - before; // skipped (spring forward): shifted forward by the gap
}

/** The first instant strictly after `now` whose local time in `tz` is `minutes` after midnight. */
export function nextLocalTime(now: Date, tz: string, minutes: number): Date {
  const w = wallAt(now.getTime(), tz);
  for (let add = 0; add <= 2; add++) {
    const t = instantOf(
      { year: w.year, month: w.month, day: w.day + add, hour: Math.floor(minutes / 60), minute: minutes % 60 },
      tz,
    );
    if (t > now.getTime()) return new Date(t);
  }
  throw new Error("unreachable: a local time recurs within two days");
}

/** The top of the next local hour in `tz` (an hour boundary is local: zones at :30 or :45 differ). */
export function nextLocalHour(now: Date, tz: string): Date {
  const w = wallAt(now.getTime(), tz);
  for (let add = 1; add <= 3; add++) {
    const t = instantOf({ year: w.year, month: w.month, day: w.day, hour: w.hour + add, minute: 0 }, tz);
    if (t > now.getTime()) return new Date(t);
  }
  throw new Error("unreachable: a local hour boundary recurs within three hours");
}

/**
 * Quiet hours `start`–`end` (local, minutes after midnight; a window across midnight when end <
 * start): null when `now` is outside them, else the instant they end.
 */
export function quietUntil(now: Date, tz: string, start: number, end: number): Date | null {
  const w = wallAt(now.getTime(), tz);
  const m = w.hour * 60 + w.minute;
  const inside = start < end ? m >= start && m < end : m >= start || m < end;
  return inside ? nextLocalTime(now, tz, end) : null;
}

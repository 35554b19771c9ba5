/** Durations on the command line: `90s`, `30m`, `2h`, `1d`, `500ms`; a bare number is seconds. */
import { UsageError } from "./args";

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/u.exec(text.trim());
  if (!m) throw new UsageError(`--${flag} takes a duration like 90s, 30m, 2h or 1d (got "${text}")`);
  const ms = Number(m[1]) * (UNIT_MS[m[2] ?? "s"] as number);
  if (!Number.isFinite(ms) || ms <= 0) throw new UsageError(`--${flag} must be longer than zero`);
  return Math.round(ms);
}

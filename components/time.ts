/** Time text shared by the inbox's clocks (pure; rendered on the client once mounted). */

/** "3d 4h", "5h 12m", "4m 09s", "12s" — the largest two units. */
export function span(ms: number): string {
  const s = Math.floor(Math.abs(ms) / 1000);
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (d > 0) return `${d}d ${h}h`;
  if (h > 0) return `${h}h ${m}m`;
  if (m > 0) return `${m}m ${String(sec).padStart(2, "0")}s`;
  return `${sec}s`;
}

/** UTC text for the server render (stable, so hydration matches). */
export function utc(iso: string): string {
  return `${iso.slice(0, 16).replace("T", " ")} UTC`;
}

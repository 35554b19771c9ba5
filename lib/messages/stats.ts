/**
 * Scrape-time readings of the message table for metrics (lib/gauges/): one query on the
 * (status, expires_at) index, so a scrape costs the same however many messages are closed.
 */
import { db } from "../db";

export interface OpenItemStats {
  /** Asks and tasks open now. */
  open: number;
  /** Seconds the most overdue open item is past its expires_at; 0 when none is (expiry keeps up). */
  expiryLagSeconds: number;
}

export async function openItemStats(now: Date): Promise<OpenItemStats> {
  const [row] = await db().$queryRaw<{ open: number; overdue_since: Date | null }[]>`
    SELECT count(*)::int AS open, min(expires_at) FILTER (WHERE expires_at < ${now}) AS overdue_since
    FROM messages WHERE status = 'open'`;
  const overdueSince = row?.overdue_since ?? null;
  return {
    open: row?.open ?? 0,
    expiryLagSeconds: overdueSince ? Math.max(0, (now.getTime() - overdueSince.getTime()) / 1000) : 0,
  };
}

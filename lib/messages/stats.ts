/**
 * Scrape-time readings of the message table for metrics (lib/gauges/): one query on the
 * (status, expires_at) index, so a scrape costs the same however many messages are closed.
 */
import { readOpenItems } from "./stats.sql";

export interface OpenItemStats {
  /** Asks and tasks open now. */
  open: number;
  /** Seconds the most overdue open item is past its expires_at; 0 when none is (expiry keeps up). */
  expiryLagSeconds: number;
}

export async function openItemStats(now: Date): Promise<OpenItemStats> {
  const row = await readOpenItems(now);
  const overdueSince = row?.overdue_since ?? null;
  return {
    open: row?.open ?? 0,
    expiryLagSeconds: overdueSince ? Math.max(0, (now.getTime() - overdueSince.getTime()) / 1000) : 0,
  };
}

/**
 * §14.2 the mailbox track of one entry — a directive's (its author's view) or an addressed message's
 * (the sender's §8.2 `mailbox` object) — built in one place so the two surfaces never drift.
 */
import type { MailboxEntry } from "../generated/prisma/client";

export type MailboxTrackState = "queued" | "delivered" | "acknowledged" | "bounced" | "expired";

export interface MailboxTrack {
  state: MailboxTrackState;
  delivered_at?: string;
  acknowledged_at?: string;
  /** §14.2 on `bounced` only: stamped once at the bounce, equal to the receipt's. */
  prior?: "queued" | "delivered";
}

export type MailboxTrackRow = Pick<MailboxEntry, "state" | "deliveredAt" | "acknowledgedAt" | "prior">;

export function mailboxTrack(row: MailboxTrackRow): MailboxTrack {
  const track: MailboxTrack = { state: row.state as MailboxTrackState };
  // `expired` means never delivered (§14.2), so it never carries delivered_at or prior; `prior:
  // queued` (never seen) never carries delivered_at either.
  if (row.deliveredAt && row.state !== "expired" && row.prior !== "queued")
    track.delivered_at = row.deliveredAt.toISOString();
  if (row.acknowledgedAt && row.state === "acknowledged") track.acknowledged_at = row.acknowledgedAt.toISOString();
  if (row.state === "bounced" && (row.prior === "queued" || row.prior === "delivered")) track.prior = row.prior;
  return track;
}

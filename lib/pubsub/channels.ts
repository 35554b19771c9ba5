/**
 * The PostgreSQL NOTIFY channels the Hub publishes on and LISTENs to. A NOTIFY is delivered on
 * commit, to every process, so a transaction's readers hear of it only once it is visible.
 */

/** Carries a key that a long-poll waits on: a message id that just turned terminal (§8.2), or a mailbox wake key (§8.7). */
export const TERMINAL_CHANNEL = "ma2h_message_terminal";

/** Carries `<account id>:<message or directive id>` for the inbox's live updates (inbox.ts). */
export const INBOX_CHANNEL = "ma2h_inbox";

/**
 * Carries a user id whose seats just changed (a seat removed, or one created): the inbox's live
 * streams of that person re-read their seats at once (seats.ts, lib/inbox/events.ts).
 */
export const SEATS_CHANNEL = "ma2h_seats";

/**
 * Carries the id of a push obligation just committed with its terminal transition (lifecycle.ts):
 * the worker makes the first attempt at once (lib/jobs/push-wake.ts) instead of waiting on a queue
 * poll (#20). Retries stay with the queue; the delivery sweep re-finds a notification nobody heard.
 */
export const PUSH_CHANNEL = "ma2h_push_due";

export const CHANNELS = [TERMINAL_CHANNEL, INBOX_CHANNEL, SEATS_CHANNEL, PUSH_CHANNEL] as const;
export type Channel = (typeof CHANNELS)[number];

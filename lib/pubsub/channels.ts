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
 * Carry the id of work a statement just made due, for the worker to start at once (lib/jobs/wake.ts):
 * a push obligation committed with its terminal transition, and a new message whose
 * notifications are to be fanned out. The sweeps re-find whatever nobody heard.
 */
export const PUSH_CHANNEL = "ma2h_push_due";
export const FANOUT_CHANNEL = "ma2h_fanout_due";
/** An addressed message's entry that just ended bounced or expired, to settle (lib/mailbox/undeliverable.ts). */
export const UNDELIVERABLE_CHANNEL = "ma2h_undeliverable_due";

/**
 * Carries a credential change that must end cached authentications at once: a revoked API key or
 * PAT, a person whose seats or role changed (credentials.ts for the payload; the cache that hears it
 * is lib/principals/credential-cache.ts).
 */
export const CREDENTIALS_CHANNEL = "ma2h_credentials";

export const CHANNELS = [
  TERMINAL_CHANNEL,
  INBOX_CHANNEL,
  SEATS_CHANNEL,
  PUSH_CHANNEL,
  FANOUT_CHANNEL,
  UNDELIVERABLE_CHANNEL,
  CREDENTIALS_CHANNEL,
] as const;
export type Channel = (typeof CHANNELS)[number];

/**
 * The §6/§7 status and resolution tables — the one place they are spelled out. The resolution track
 * (ask/task `status`) and the §14.2 mailbox/delivery tracks are separate machines; keep them apart.
 */

/** §6: the single canonical resolution value space, per verb. */
export const RESOLUTIONS_BY_TYPE = {
  ask: ["answered", "declined", "cancelled", "expired"],
  task: ["completed", "dismissed", "expired"],
} as const;

/** §8.8: what a resolver may assert (cancel is §8.4's verb; expiry is Hub-only). */
export const RESOLVER_RESOLUTIONS_BY_TYPE = {
  ask: ["answered", "declined"],
  task: ["completed", "dismissed"],
} as const;

export type Resolution = (typeof RESOLUTIONS_BY_TYPE)[keyof typeof RESOLUTIONS_BY_TYPE][number];

/** §7: the terminal statuses of the ask/task resolution track (first terminal wins, immutable). */
export const TERMINAL_STATUSES: readonly Resolution[] = [
  "answered",
  "declined",
  "cancelled",
  "expired",
  "completed",
  "dismissed",
];

/** §7 `status` values per verb. A human-inbox notify is `delivered` on acceptance (§5.1); an
 * addressed notify's status IS its §14.2 mailbox track. */
export const STATUSES_BY_TYPE = {
  ask: ["open", ...RESOLUTIONS_BY_TYPE.ask],
  task: ["open", ...RESOLUTIONS_BY_TYPE.task],
  notify: ["delivered"],
  addressedNotify: ["queued", "delivered", "acknowledged", "bounced", "expired"],
} as const;

/** §14.2 outbound mailbox track of an addressed message, and its terminals. */
export const MAILBOX_STATES = ["queued", "delivered", "acknowledged", "bounced", "expired"] as const;
export const MAILBOX_TERMINALS = ["acknowledged", "bounced", "expired"] as const;
/** §14.2 response track (did the submitter get the answer). */
export const DELIVERY_STATES = ["delivered-to-agent", "acknowledged", "expired"] as const;

export type MessageStatus = "open" | Resolution | (typeof MAILBOX_STATES)[number];

/** §7: true iff an ask/task `status` is a terminal resolution (no further transition). */
export function isTerminal(status: string): status is Resolution {
  return (TERMINAL_STATUSES as readonly string[]).includes(status);
}

/** True iff `resolution` belongs to the verb's §6 value space. */
export function isResolutionFor(type: "ask" | "task", resolution: string): boolean {
  return (RESOLUTIONS_BY_TYPE[type] as readonly string[]).includes(resolution);
}

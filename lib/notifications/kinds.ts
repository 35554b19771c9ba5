/**
 * The one table of notification channels and kinds. A notification row is keyed by
 * (message, person, channel, kind): `new` when the item arrives, `reminder` to its resolvers after
 * the account's delay, `escalation` to the account's owners/admins after a longer one (and to
 * whom the approval policy's `escalate_to` names, lib/assignment/escalate.ts), `assigned` to the
 * people an open item is handed to (lib/assignment/reassign.ts).
 *
 * Channels: `email` (SMTP, smtp.ts), `slack` (a direct message from the account's connected Slack
 * app to the person's bound Slack user, lib/notifications/slack/), `push` (Web Push to each of the person's
 * subscribed devices, lib/notifications/web-push/). Each is sent by its sender in channels.ts.
 */
export const CHANNEL_EMAIL = "email";
export const CHANNEL_SLACK = "slack";
export const CHANNEL_PUSH = "push";
export const CHANNELS = [CHANNEL_EMAIL, CHANNEL_SLACK, CHANNEL_PUSH] as const;
export type Channel = (typeof CHANNELS)[number];

/** Only email gathers notify items into a digest mail; the other channels tell each item on its own. */
export const DIGEST_CHANNELS: readonly Channel[] = [CHANNEL_EMAIL];

export const KIND_NEW = "new";
export const KIND_REMINDER = "reminder";
export const KIND_ESCALATION = "escalation";
export const KIND_ASSIGNED = "assigned";
/** To a standing rule's creator when it stopped itself at its hourly cap (lib/standing-rules/apply.ts). */
export const KIND_RULE_STOPPED = "rule_stopped";
export const KINDS = [KIND_NEW, KIND_REMINDER, KIND_ESCALATION, KIND_ASSIGNED, KIND_RULE_STOPPED] as const;
export type Kind = (typeof KINDS)[number];

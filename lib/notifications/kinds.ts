/**
 * The one table of notification channels and kinds (#16). A notification row is keyed by
 * (message, person, channel, kind): `new` when the item arrives, `reminder` to its resolvers after
 * the account's delay, `escalation` to the account's owners/admins after a longer one.
 */
export const CHANNEL_EMAIL = "email";
export const CHANNELS = [CHANNEL_EMAIL] as const;
export type Channel = (typeof CHANNELS)[number];

export const KIND_NEW = "new";
export const KIND_REMINDER = "reminder";
export const KIND_ESCALATION = "escalation";
export const KINDS = [KIND_NEW, KIND_REMINDER, KIND_ESCALATION] as const;
export type Kind = (typeof KINDS)[number];

/**
 * A person's notification preferences in one account (docs/notifications.md "Preferences"):
 * the person's own choices over the account's defaults over the built-in ones, and the one decision
 * every sender asks — should this person be told of this item on this channel, and when?
 *
 * - per channel (kinds.ts `CHANNELS`; a new channel is one more entry in `BUILT_IN.channels`):
 *   ask/task on or off, notify on or off (opt-in: off unless chosen), a minimum priority, and
 *   whether notify items come one mail each or in an hourly or daily digest;
 * - per person: a time zone (IANA, checked with Intl) and optional quiet hours in it, with
 *   "urgent breaks through" as a choice.
 */
import { z } from "zod";
import { db } from "../db";
import { HubError } from "@ma2h/protocol/errors";
import { PRIORITIES, PRIORITY_RANK } from "../messages/listing";
import { CHANNELS, type Channel, DIGEST_CHANNELS, KIND_ESCALATION, type Kind } from "./kinds";
import { HH_MM, isTimeZone, minutesOf, nextLocalHour, nextLocalTime, quietUntil } from "./local-time";
import { accountNotificationSettings } from "./settings";

/** The minimum-priority choices, lowest first (the settings form lists them so). */
export const MIN_PRIORITY_CHOICES = [...PRIORITIES].reverse();
export const DIGESTS = ["off", "hourly", "daily"] as const;
export type Digest = (typeof DIGESTS)[number];

/** The local time of the daily digest (docs/decisions/notifications.md "Notifications: preferences and digests"). */
export const DAILY_DIGEST_AT = "08:00";

const channelShape = z.strictObject({
  /** New asks and tasks (and their reminders and escalations). */
  askTask: z.boolean(),
  /** New notify items: opt-in. */
  notify: z.boolean(),
  /** Items below this priority are not sent on this channel (escalations excepted). */
  minPriority: z.enum(PRIORITIES),
  /** Notify items one mail each, or gathered into an hourly or daily digest. */
  digest: z.enum(DIGESTS),
});

const timeOfDay = z.string().regex(HH_MM, "must be a time of day as HH:MM (00:00–23:59)");

const quietHoursShape = z
  .strictObject({
    start: timeOfDay,
    end: timeOfDay,
    /** An urgent item is sent inside quiet hours too. */
    urgentBreaksThrough: z.boolean(),
  })
  .refine((q) => q.start !== q.end, { message: "quiet hours must start and end at different times" });

const timeZone = z.string().max(64).refine(isTimeZone, { message: "is not a known IANA time zone" });

/** One entry per channel (kinds.ts `CHANNELS`). */
function perChannel<T>(value: T): Record<Channel, T> {
  return Object.fromEntries(CHANNELS.map((c) => [c, value])) as Record<Channel, T>;
}

const channelsShape = z.strictObject(perChannel(channelShape));

/** The whole preferences of one person in one account, every field present. */
export const preferencesShape = z.strictObject({
  channels: channelsShape,
  timeZone,
  /** null: no quiet hours. */
  quietHours: quietHoursShape.nullable(),
});
export type Preferences = z.infer<typeof preferencesShape>;
export type ChannelPreferences = z.infer<typeof channelShape>;

/**
 * What a person's row or an account's defaults store: any part of the shape. A channel's fields
 * each fall back on their own; quiet hours are one unit (null = none, absent = fall back).
 */
export const partialPreferencesShape = z.strictObject({
  channels: z.strictObject(perChannel(channelShape.partial().optional())).optional(),
  timeZone: timeZone.optional(),
  quietHours: quietHoursShape.nullable().optional(),
});
export type PartialPreferences = z.infer<typeof partialPreferencesShape>;

/**
 * The built-in defaults: every channel on for asks and tasks, notify off (opt-in),
 * everything, no digest. Slack and push reach only a person who bound a Slack user or subscribed a
 * device — itself an opt-in — so "on" there costs nobody an unwanted message.
 */
const CHANNEL_DEFAULT: ChannelPreferences = { askTask: true, notify: false, minPriority: "low", digest: "off" };
export const BUILT_IN: Preferences = {
  channels: perChannel(CHANNEL_DEFAULT),
  timeZone: "UTC",
  quietHours: null,
};

/**
 * A stored partial, read leniently: a row written by an older Hub (or edited by hand) that no
 * longer fits the shape falls back to the layer below rather than breaking every notification.
 */
export function readPartial(stored: unknown): PartialPreferences {
  const parsed = partialPreferencesShape.safeParse(stored ?? {});
  return parsed.success ? parsed.data : {};
}

/** `over` wins field by field over `base`. */
export function merge(base: Preferences, over: PartialPreferences): Preferences {
  const channels = { ...base.channels };
  for (const c of CHANNELS) channels[c] = { ...base.channels[c], ...(over.channels?.[c] ?? {}) };
  return {
    channels,
    timeZone: over.timeZone ?? base.timeZone,
    quietHours: over.quietHours === undefined ? base.quietHours : over.quietHours,
  };
}

/** The account's defaults over the built-in ones: what a person who chose nothing gets. */
export async function accountDefaults(accountId: string): Promise<Preferences> {
  return merge(BUILT_IN, readPartial((await accountNotificationSettings(accountId)).defaults));
}

/** The person's own stored choices in the account ({} when none). */
export async function personalPreferences(userId: string, accountId: string): Promise<PartialPreferences> {
  const row = await db().notificationPreference.findUnique({
    where: { userId_accountId: { userId, accountId } },
    select: { prefs: true },
  });
  return readPartial(row?.prefs);
}

/** Effective preferences: the person's row over the account's defaults over the built-in ones. */
export async function effectivePreferences(userId: string, accountId: string): Promise<Preferences> {
  const [defaults, own] = await Promise.all([accountDefaults(accountId), personalPreferences(userId, accountId)]);
  return merge(defaults, own);
}

export interface PlanItem {
  type: "notify" | "ask" | "task";
  priority: "low" | "normal" | "high" | "urgent";
}

export type DeliveryPlan =
  | { send: false; reason: string }
  /** `at`: when to send (later than now inside quiet hours); `digest`: hold for the digest mail. */
  | { send: true; at: Date; digest: boolean };

/**
 * The decision, pure (docs/notifications.md "Preferences", docs/decisions/notifications.md):
 * 1. the channel is off for the item's type → not sent;
 * 2. below the channel's minimum priority → not sent — for new items and reminders; an escalation
 *    goes to owners/admins because nobody acted, so it is not filtered by priority;
 * 3. a notify with a digest chosen (email only: kinds.ts `DIGEST_CHANNELS`) → held for the next digest boundary (hourly: the top of the next
 *    local hour; daily: the next `DAILY_DIGEST_AT` local);
 * 4. inside quiet hours (at `now`, or at the digest boundary) → at the end of quiet hours, unless
 *    the item is urgent and urgent breaks through.
 */
export function planDelivery(
  prefs: Preferences,
  channel: Channel,
  kind: Kind,
  item: PlanItem,
  now: Date,
): DeliveryPlan {
  const c = prefs.channels[channel];
  if (item.type === "notify" ? !c.notify : !c.askTask) return { send: false, reason: "channel_off" };
  if (kind !== KIND_ESCALATION && PRIORITY_RANK[item.priority] > PRIORITY_RANK[c.minPriority])
    return { send: false, reason: "below_min_priority" };
  const digest = item.type === "notify" && c.digest !== "off" && DIGEST_CHANNELS.includes(channel);
  let at = now;
  if (digest)
    at =
      c.digest === "hourly"
        ? nextLocalHour(now, prefs.timeZone)
        : nextLocalTime(now, prefs.timeZone, minutesOf(DAILY_DIGEST_AT));
  const q = prefs.quietHours;
  if (q && !(item.priority === "urgent" && q.urgentBreaksThrough)) {
    const until = quietUntil(at, prefs.timeZone, minutesOf(q.start), minutesOf(q.end));
    if (until) at = until;
  }
  return { send: true, at, digest };
}

/**
 * The decision for one person, one item, one channel and kind, at `now` (for a reminder or an
 * escalation, `now` is when it is due). Reads the person's effective preferences.
 */
export async function deliveryPlan(
  userId: string,
  accountId: string,
  channel: Channel,
  kind: Kind,
  item: PlanItem,
  now: Date,
): Promise<DeliveryPlan> {
  return planDelivery(await effectivePreferences(userId, accountId), channel, kind, item, now);
}

/** `channels.email.notify`-style paths of every leaf, for comparing two sets of preferences. */
function leaves(value: unknown, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  if (value !== null && typeof value === "object")
    for (const [k, v] of Object.entries(value))
      for (const [p, l] of leaves(v, prefix ? `${prefix}.${k}` : k)) out.set(p, l);
  else out.set(prefix, JSON.stringify(value));
  return out;
}

/** The fields (paths, never values) that differ between two sets of preferences — what the audit row names. */
export function changedFields(before: Preferences, after: Preferences): string[] {
  const a = leaves(before);
  const b = leaves(after);
  const keys = new Set([...a.keys(), ...b.keys()]);
  // Quiet hours turned on or off differ as a whole, not leaf by leaf.
  return [...keys]
    .filter((k) => a.get(k) !== b.get(k))
    .map((k) => (k.startsWith("quietHours") ? "quietHours" : k))
    .filter((k, i, all) => all.indexOf(k) === i)
    .sort();
}

/** Parses a whole set of preferences from a form or a request, or throws a `validation_error` naming each field. */
export function parsePreferences(input: unknown): Preferences {
  const parsed = preferencesShape.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(preferences)"}: ${i.message}`);
  throw new HubError("validation_error", problems.join("; "));
}

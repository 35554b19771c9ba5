/**
 * The preferences form's fields (`/settings/notifications` and the account defaults on
 * `/admin/<account>/notifications` share one form): their names, and the form read back into the
 * shape `parsePreferences` validates. A checkbox is on when present; nothing here validates —
 * preferences.ts does, with one message per bad field.
 */
import { CHANNELS, type Channel, DIGEST_CHANNELS } from "./kinds";
import { DAILY_DIGEST_AT, DIGESTS, MIN_PRIORITY_CHOICES } from "./preferences";

export const FIELD = {
  askTask: (c: Channel) => `${c}.askTask`,
  notify: (c: Channel) => `${c}.notify`,
  minPriority: (c: Channel) => `${c}.minPriority`,
  digest: (c: Channel) => `${c}.digest`,
  timeZone: "timeZone",
  quiet: "quiet",
  quietStart: "quietStart",
  quietEnd: "quietEnd",
  urgentBreaksThrough: "urgentBreaksThrough",
} as const;

/**
 * What the form offers, handed to components/PreferenceFields.tsx as a prop: components import
 * nothing of lib/ at run time (docs/architecture.json), and this module reaches the database.
 */
export const PREFERENCE_FORM = {
  channels: CHANNELS,
  digestChannels: DIGEST_CHANNELS,
  digests: DIGESTS,
  minPriorities: MIN_PRIORITY_CHOICES,
  dailyDigestAt: DAILY_DIGEST_AT,
  field: FIELD,
} as const;
export type PreferenceForm = typeof PREFERENCE_FORM;

/** `get(name)`: the field's text, or null when absent (an unchecked checkbox). */
export function preferencesFromForm(get: (name: string) => string | null): unknown {
  const on = (name: string) => get(name) !== null;
  return {
    channels: Object.fromEntries(
      CHANNELS.map((c) => [
        c,
        {
          askTask: on(FIELD.askTask(c)),
          notify: on(FIELD.notify(c)),
          minPriority: get(FIELD.minPriority(c)) ?? "",
          digest: get(FIELD.digest(c)) ?? "",
        },
      ]),
    ),
    timeZone: (get(FIELD.timeZone) ?? "").trim(),
    quietHours: on(FIELD.quiet)
      ? {
          start: get(FIELD.quietStart) ?? "",
          end: get(FIELD.quietEnd) ?? "",
          urgentBreaksThrough: on(FIELD.urgentBreaksThrough),
        }
      : null,
  };
}

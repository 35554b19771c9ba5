/**
 * The fields of one set of notification preferences: a person's own on
 * `/settings/notifications`, an account's defaults on `/admin/<account>/notifications`. Plain
 * inputs inside an ActionForm; the choices and field names arrive as the `form` prop
 * (`PREFERENCE_FORM` of lib/notifications/preferences-form.ts), and the server validates everything
 * (preferences.ts).
 */
import type { Channel } from "@/lib/notifications/kinds";
import type { Preferences } from "@/lib/notifications/preferences";
import type { PreferenceForm } from "@/lib/notifications/preferences-form";

const CHANNEL_LABEL: Record<Channel, string> = { email: "Email", slack: "Slack", push: "Browser push" };
/** What a channel needs before it reaches the person at all. */
const CHANNEL_NOTE: Record<Channel, string | null> = {
  email: null,
  slack: "Direct messages from the account's Slack app, once you have bound your Slack user (answer one Slack button).",
  push: "System notifications on each device where you chose \u201cNotify me on this device\u201d in the inbox.",
};
const digestLabel = (form: PreferenceForm) =>
  ({
    off: "one mail each",
    hourly: "an hourly digest",
    daily: `a daily digest (${form.dailyDigestAt} in my time zone)`,
  }) as const;

/**
 * The IANA zones this runtime lists, UTC first — plus the saved one when Intl accepts it but does
 * not list it (an alias such as `US/Eastern`), so saving the form never changes it silently.
 */
function timeZones(current: string): string[] {
  const all = ["UTC", ...Intl.supportedValuesOf("timeZone").filter((z) => z !== "UTC")];
  return all.includes(current) ? all : [current, ...all];
}

export function PreferenceFields({
  values,
  testId,
  form,
}: {
  values: Preferences;
  testId: string;
  form: PreferenceForm;
}) {
  const q = values.quietHours;
  const field = form.field;
  const digestLabels = digestLabel(form);
  return (
    <>
      {form.channels.map((c) => {
        const v = values.channels[c];
        return (
          <fieldset key={c} className="pref-channel" data-testid={`${testId}-${c}`}>
            <legend>{CHANNEL_LABEL[c]}</legend>
            {CHANNEL_NOTE[c] && <p className="muted">{CHANNEL_NOTE[c]}</p>}
            <label>
              <input
                type="checkbox"
                name={field.askTask(c)}
                defaultChecked={v.askTask}
                data-testid={`${testId}-${c}-asktask`}
              />{" "}
              asks and tasks waiting on me
            </label>
            <label>
              <input
                type="checkbox"
                name={field.notify(c)}
                defaultChecked={v.notify}
                data-testid={`${testId}-${c}-notify`}
              />{" "}
              notify items (for information, nothing to answer)
            </label>
            <label>
              only from priority{" "}
              <select
                name={field.minPriority(c)}
                defaultValue={v.minPriority}
                data-testid={`${testId}-${c}-minpriority`}
              >
                {form.minPriorities.map((p) => (
                  <option key={p} value={p}>
                    {p}
                    {p === "low" ? " (everything)" : " and up"}
                  </option>
                ))}
              </select>
            </label>
            {form.digestChannels.includes(c) ? (
              <label>
                notify items as{" "}
                <select name={field.digest(c)} defaultValue={v.digest} data-testid={`${testId}-${c}-digest`}>
                  {form.digests.map((d) => (
                    <option key={d} value={d}>
                      {digestLabels[d]}
                    </option>
                  ))}
                </select>
              </label>
            ) : (
              // Only email gathers notify items into a digest (kinds.ts): the others tell each one.
              <input type="hidden" name={field.digest(c)} value="off" />
            )}
          </fieldset>
        );
      })}
      <fieldset className="pref-quiet" data-testid={`${testId}-quiet`}>
        <legend>Quiet hours</legend>
        <label>
          time zone{" "}
          <select name={field.timeZone} defaultValue={values.timeZone} data-testid={`${testId}-timezone`}>
            {timeZones(values.timeZone).map((z) => (
              <option key={z} value={z}>
                {z}
              </option>
            ))}
          </select>
        </label>
        <label>
          <input type="checkbox" name={field.quiet} defaultChecked={q !== null} data-testid={`${testId}-quiet-on`} />{" "}
          hold notifications back from
        </label>
        <label>
          <input
            type="time"
            name={field.quietStart}
            defaultValue={q?.start ?? "22:00"}
            aria-label="quiet hours start"
            data-testid={`${testId}-quiet-start`}
          />
        </label>
        <label>
          to{" "}
          <input
            type="time"
            name={field.quietEnd}
            defaultValue={q?.end ?? "07:00"}
            aria-label="quiet hours end"
            data-testid={`${testId}-quiet-end`}
          />
        </label>
        <label>
          <input
            type="checkbox"
            name={field.urgentBreaksThrough}
            defaultChecked={q?.urgentBreaksThrough ?? true}
            data-testid={`${testId}-quiet-urgent`}
          />{" "}
          urgent items break through
        </label>
      </fieldset>
    </>
  );
}

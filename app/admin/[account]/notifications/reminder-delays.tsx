import { ActionForm } from "@/components/ActionForm";
import { PRIORITIES } from "@/lib/messages/listing";
import {
  DEFAULT_REMIND_MINUTES,
  delayField,
  type ReminderOverrides,
  reminderOverrides,
  reminderPolicy,
} from "@/lib/notifications/reminders";
import { setReminderDelaysAction } from "./reminder-actions";

const shown = (m: number | null) => (m === null ? "off" : `${m} min`);

/** A field's current value: blank follows the built-in default, `off`, or the minutes set. */
function current(o: ReminderOverrides, p: (typeof PRIORITIES)[number], key: "remindMinutes" | "escalateMinutes") {
  const v = o[p]?.[key];
  return v === undefined ? "" : v === null ? "off" : String(v);
}

/**
 * The account's reminder and escalation delays (docs/notifications.md "Reminders and
 * escalation"), a section of the account's notification settings page: per priority, minutes
 * after an item's creation until one reminder to its resolvers and one escalation to the owners
 * and admins. Everyone with the page sees the delays in force; owners/admins change them.
 */
export async function ReminderDelays({
  accountId,
  slug,
  canEdit,
}: {
  accountId: string;
  slug: string;
  canEdit: boolean;
}) {
  const [overrides, policy] = await Promise.all([reminderOverrides(accountId), reminderPolicy(accountId)]);
  return (
    <section className="panel" data-testid="reminder-delays">
      <h2>Reminders and escalation</h2>
      <p className="hint">
        An ask or task still open this many minutes after it arrived is mailed once more to the people who may answer it
        (the reminder), and later once to the account&apos;s owners and admins (the escalation). Both are cancelled when
        the item is resolved, expires or is cancelled. A change applies to items submitted after it.
      </p>
      <table className="admin-table" data-testid="reminder-policy">
        <thead>
          <tr>
            <th>Priority</th>
            <th>Reminder after</th>
            <th>Escalation after</th>
          </tr>
        </thead>
        <tbody>
          {PRIORITIES.map((p) => (
            <tr key={p} data-testid={`reminder-policy-${p}`}>
              <td>{p}</td>
              <td>{shown(policy[p].remindMinutes)}</td>
              <td>{shown(policy[p].escalateMinutes)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {canEdit && (
        <ActionForm
          action={setReminderDelaysAction}
          hidden={{ account: slug }}
          submit="Save delays"
          testId="reminder-form"
        >
          <p className="hint">
            Minutes (decimals allowed), <code>off</code>, or blank for the default (reminder: 30 urgent and high, 240
            normal, off for low; escalation: twice the reminder).
          </p>
          {PRIORITIES.map((p) => (
            <fieldset key={p}>
              <legend>{p}</legend>
              <label>
                Reminder after{" "}
                <input
                  name={delayField(p, "remind")}
                  defaultValue={current(overrides, p, "remindMinutes")}
                  placeholder={shown(DEFAULT_REMIND_MINUTES[p])}
                  inputMode="decimal"
                  autoComplete="off"
                  data-testid={`reminder-${p}-remind`}
                />
              </label>
              <label>
                Escalation after{" "}
                <input
                  name={delayField(p, "escalate")}
                  defaultValue={current(overrides, p, "escalateMinutes")}
                  placeholder="2 × reminder"
                  inputMode="decimal"
                  autoComplete="off"
                  data-testid={`reminder-${p}-escalate`}
                />
              </label>
            </fieldset>
          ))}
        </ActionForm>
      )}
    </section>
  );
}

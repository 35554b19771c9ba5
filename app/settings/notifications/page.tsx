import { ActionForm } from "@/components/ActionForm";
import { PreferenceFields } from "@/components/PreferenceFields";
import { mailSettings } from "@/lib/env";
import { PREFERENCE_FORM } from "@/lib/notifications/preferences-form";
import { requireHuman } from "@/lib/next/current-human";
import { effectivePreferences } from "@/lib/notifications/preferences";
import { hasOwnPreferences } from "@/lib/notifications/preferences-store";
import { seatsOf } from "@/lib/principals/seats";
import { resetPreferencesAction, savePreferencesAction } from "./actions";

export const dynamic = "force-dynamic";

/**
 * How I am told (docs/notifications.md "Preferences"): one form per account I have a seat in —
 * channels, minimum priority, notify opt-in and digests, quiet hours in my time zone.
 */
export default async function NotificationSettingsPage() {
  const human = await requireHuman("/settings/notifications");
  const seats = await seatsOf(human.userId);
  const emailOn = mailSettings() !== null;
  const forms = await Promise.all(
    seats.map(async (s) => ({
      seat: s,
      prefs: await effectivePreferences(human.userId, s.accountId),
      own: await hasOwnPreferences(human.userId, s.accountId),
    })),
  );
  return (
    <main>
      <section className="panel">
        <h1>Notifications</h1>
        {!emailOn && (
          <p className="notice notice-warn" data-testid="email-off">
            Email is off on this Hub (no <code>SMTP_URL</code>): nothing is mailed until an operator sets it up. Your
            choices are kept for then.
          </p>
        )}
        <p className="hint">
          Where the Hub tells you that an agent is waiting on you, per account. Asks and tasks reach the people who may
          answer them; notify items only those who turn them on. Quiet hours hold mail back until they end.
        </p>
        {forms.length === 0 && <p className="empty">You have no seat in any account.</p>}
      </section>
      {forms.map(({ seat, prefs, own }) => (
        <section className="panel" key={seat.accountId} data-testid={`prefs-${seat.slug}`}>
          <h2>
            {seat.slug} <span className="muted">as {seat.role}</span>
          </h2>
          <p className="hint" data-testid={`prefs-${seat.slug}-source`}>
            {own ? "Your own choices." : `${seat.slug}'s defaults: saving makes them your own.`}
          </p>
          <ActionForm
            action={savePreferencesAction}
            hidden={{ account: seat.slug }}
            submit="Save"
            testId={`save-prefs-${seat.slug}`}
          >
            <PreferenceFields values={prefs} testId={`pref-${seat.slug}`} form={PREFERENCE_FORM} />
          </ActionForm>
          {own && (
            <ActionForm
              action={resetPreferencesAction}
              hidden={{ account: seat.slug }}
              submit={`Use ${seat.slug}'s defaults`}
              testId={`reset-prefs-${seat.slug}`}
              className="inline-form"
            />
          )}
        </section>
      ))}
    </main>
  );
}

import { ActionForm } from "@/components/ActionForm";
import { PreferenceFields } from "@/components/PreferenceFields";
import { mailSettings } from "@/lib/env";
import { PREFERENCE_FORM } from "@/lib/notifications/preferences-form";
import { adminPage } from "@/lib/next/admin-page";
import { accountDefaults } from "@/lib/notifications/preferences";
import { accountNotificationSettings } from "@/lib/notifications/settings";
import { saveDefaultsAction, setEmailAnswerAction, setEmailAnswerSensitiveAction } from "./actions";
import { ReminderDelays } from "./reminder-delays";

export const dynamic = "force-dynamic";

/**
 * The account's notification settings (docs/notifications.md): the defaults its people's
 * preferences start from (owners and admins), answering from an email without signing in (owners
 * only), and the reminder and escalation delays.
 */
export default async function AccountNotificationsPage({ params }: { params: Promise<{ account: string }> }) {
  const { account } = await params;
  const { seat } = await adminPage(account, `/admin/${encodeURIComponent(account)}/notifications`);
  const [defaults, settings] = await Promise.all([
    accountDefaults(seat.accountId),
    accountNotificationSettings(seat.accountId),
  ]);
  const hidden = { account: seat.slug };
  const isOwner = seat.role === "owner";
  return (
    <main>
      {mailSettings() === null && (
        <section className="panel">
          <p className="notice notice-warn" data-testid="email-off">
            Email is off on this Hub (no <code>SMTP_URL</code>): these settings take effect once it is set up.
          </p>
        </section>
      )}
      <section className="panel">
        <h2>Defaults for people in {seat.slug}</h2>
        <p className="hint">
          What each person gets until they choose for themselves on their own notification settings. Notify items are
          opt-in: turning them on here tells everyone in the account, viewers too, who has not chosen otherwise.
        </p>
        <ActionForm action={saveDefaultsAction} hidden={hidden} submit="Save defaults" testId="save-defaults">
          <PreferenceFields values={defaults} testId="defaults" form={PREFERENCE_FORM} />
        </ActionForm>
      </section>
      <section className="panel" data-testid="email-answer">
        <h2>Answering from an email</h2>
        <p className="hint">
          A mail's answer link always opens a confirmation page and re-checks the person's right to answer. With this
          on, the link alone is enough; with it off, the person must sign in to the Hub first.
        </p>
        <p data-testid="email-answer-state">
          Now: <strong>{settings.emailAnswerWithoutSignIn ? "on" : "off"}</strong> — people{" "}
          {settings.emailAnswerWithoutSignIn ? "may answer without signing in" : "must sign in to answer"}.
        </p>
        {isOwner ? (
          <ActionForm
            action={setEmailAnswerAction}
            hidden={{ ...hidden, enabled: settings.emailAnswerWithoutSignIn ? "off" : "on" }}
            submit={settings.emailAnswerWithoutSignIn ? "Require sign-in" : "Allow without sign-in"}
            testId="toggle-email-answer"
            className="inline-form"
          />
        ) : (
          <p className="muted" data-testid="email-answer-owner-only">
            Only an owner of {seat.slug} can change this.
          </p>
        )}
        <h3>High-priority and restricted asks</h3>
        <p className="hint">
          An item of priority <code>high</code> or <code>urgent</code>, or one whose agent named who may answer it (
          <code>allowed_resolvers</code>), needs the person signed in to answer from an email — unless this is on. It
          only matters while the setting above is on.
        </p>
        <p data-testid="email-answer-sensitive-state">
          Now: <strong>{settings.emailAnswerSensitiveWithoutSignIn ? "on" : "off"}</strong> — for those,{" "}
          {settings.emailAnswerSensitiveWithoutSignIn
            ? "the email link alone is enough"
            : "people must sign in to answer from an email"}
          .
        </p>
        {isOwner && (
          <ActionForm
            action={setEmailAnswerSensitiveAction}
            hidden={{ ...hidden, enabled: settings.emailAnswerSensitiveWithoutSignIn ? "off" : "on" }}
            submit={
              settings.emailAnswerSensitiveWithoutSignIn ? "Require sign-in for them" : "Allow them without sign-in"
            }
            testId="toggle-email-answer-sensitive"
            className="inline-form"
          />
        )}
      </section>
      <ReminderDelays accountId={seat.accountId} slug={seat.slug} canEdit />
    </main>
  );
}

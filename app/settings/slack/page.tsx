import { ActionForm } from "@/components/ActionForm";
import { When } from "@/components/When";
import { requireHuman } from "@/lib/next/current-human";
import { slackIdentitiesOf } from "@/lib/notifications/slack/bindings";
import { unbindSlackAction } from "./actions";

export const dynamic = "force-dynamic";

/**
 * The person's Slack bindings (docs/notifications.md "Slack: who clicked"): per account, the
 * Slack user whose clicks on MA2H buttons answer as them; remove one.
 */
export default async function SlackPage() {
  const human = await requireHuman("/settings/slack");
  const bindings = await slackIdentitiesOf(human.userId);
  return (
    <main>
      <section className="panel">
        <h1>Slack</h1>
        <p className="hint">
          The Slack users whose clicks on MA2H buttons answer as you, one per account. A Slack user is bound only when
          you confirm the link Slack shows you after your first click, signed in here. Remove a binding and that Slack
          user&apos;s clicks are refused until someone binds it again.
        </p>
        {bindings.length === 0 ? (
          <p className="empty" data-testid="slack-bindings-empty">
            No Slack user answers as you.
          </p>
        ) : (
          <table className="admin-table" data-testid="slack-bindings-table">
            <thead>
              <tr>
                <th>Account</th>
                <th>Workspace</th>
                <th>Slack user</th>
                <th>Since</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {bindings.map((b) => (
                <tr key={b.id} data-testid="slack-binding-row" data-binding={b.id} data-slack-user={b.slackUserId}>
                  <td>{b.account.slug}</td>
                  <td>
                    {b.teamName && <>{b.teamName} </>}
                    <code>{b.teamId}</code>
                  </td>
                  <td>
                    <code>{b.slackUserId}</code>
                  </td>
                  <td>
                    <When at={b.createdAt} />
                  </td>
                  <td>
                    <ActionForm
                      action={unbindSlackAction}
                      hidden={{ binding: b.id }}
                      submit="Remove"
                      danger
                      confirm={`Remove Slack user ${b.slackUserId} in ${b.account.slug}? Its clicks will no longer answer as you.`}
                      testId={`unbind-slack-${b.id}`}
                      className="inline-form"
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </main>
  );
}

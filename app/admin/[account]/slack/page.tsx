import { ActionForm } from "@/components/ActionForm";
import { env } from "@/lib/env";
import { adminPage } from "@/lib/next/admin-page";
import { slackConnectionOf } from "@/lib/notifications/slack/connection";
import { connectSlackAction, disconnectSlackAction, setSlackDestinationsAction } from "./actions";

export const dynamic = "force-dynamic";

/**
 * The account's Slack app (docs/notifications.md "Slack"): owners connect it with the bot
 * token and signing secret (write-only: the page shows only the workspace, when and by whom) and
 * disconnect it; owners and admins choose a channel and/or direct messages.
 */
export default async function AccountSlackPage({ params }: { params: Promise<{ account: string }> }) {
  const { account } = await params;
  const { seat } = await adminPage(account, `/admin/${encodeURIComponent(account)}/slack`);
  const conn = await slackConnectionOf(seat.accountId);
  const hidden = { account: seat.slug };
  const interactionUrl = `${env().publicUrl}/api/slack/interactions/${seat.slug}`;
  const owner = seat.role === "owner";
  return (
    <main>
      <section className="panel" data-testid="slack-state">
        <h2>Slack</h2>
        {conn ? (
          <p data-testid="slack-connected">
            Connected to <strong>{conn.teamName}</strong> since {conn.connectedAt.toISOString()}, by{" "}
            <code>{conn.connectedBy}</code>.
          </p>
        ) : (
          <p data-testid="slack-disconnected">Not connected.</p>
        )}
        <p className="hint">
          The Slack app&apos;s interactivity request URL:{" "}
          <code data-testid="slack-interaction-url">{interactionUrl}</code>
        </p>
      </section>
      {conn && (
        <section className="panel">
          <h2>Where items go</h2>
          <ActionForm action={setSlackDestinationsAction} hidden={hidden} submit="Save" testId="slack-destinations">
            <label>
              Channel id (C… or G…; empty for none){" "}
              <input name="channel_id" defaultValue={conn.channelId ?? ""} autoComplete="off" />
            </label>
            <label>
              <input type="checkbox" name="direct_messages" defaultChecked={conn.directMessages} /> Direct messages to
              people who linked their Slack user
            </label>
          </ActionForm>
          {owner && (
            <ActionForm
              action={disconnectSlackAction}
              hidden={hidden}
              submit="Disconnect"
              danger
              confirm="Disconnect this account from Slack? Every person's Slack link is removed."
              testId="slack-disconnect"
            />
          )}
        </section>
      )}
      {!owner && (
        <p className="hint" data-testid="slack-owner-only">
          Only an owner of the account can connect, reconnect or disconnect Slack.
        </p>
      )}
      {owner && (
        <section className="panel">
          <h2>{conn ? "Reconnect" : "Connect"}</h2>
          <p className="hint">
            Paste the app&apos;s bot token and signing secret (docs/slack-app-manifest.yaml). The Hub checks the token
            with Slack before storing it; neither is ever shown again. A new token, signing secret or workspace removes
            every person&apos;s Slack link: each person links their Slack user again from their next click.
          </p>
          <ActionForm action={connectSlackAction} hidden={hidden} submit="Connect" testId="slack-connect">
            <label>
              Bot token <input name="bot_token" type="password" autoComplete="off" required />
            </label>
            <label>
              Signing secret <input name="signing_secret" type="password" autoComplete="off" required />
            </label>
            <label>
              Channel id (optional) <input name="channel_id" autoComplete="off" />
            </label>
            <label>
              <input type="checkbox" name="direct_messages" defaultChecked /> Direct messages
            </label>
          </ActionForm>
        </section>
      )}
    </main>
  );
}

import { ActionForm } from "@/components/ActionForm";
import { env } from "@/lib/env";
import { adminPage } from "@/lib/next/admin-page";
import { teamsConnectionOf } from "@/lib/notifications/teams/connection";
import { connectTeamsAction, disconnectTeamsAction } from "./actions";

export const dynamic = "force-dynamic";

/**
 * The account's Microsoft Teams bot (docs/notifications.md "Microsoft Teams"): owners connect it with
 * the Bot Framework app id, tenant and client secret (write-only: the page shows only the ids, the
 * channel, when and by whom) and disconnect it.
 */
export default async function AccountTeamsPage({ params }: { params: Promise<{ account: string }> }) {
  const { account } = await params;
  const { seat } = await adminPage(account, `/admin/${encodeURIComponent(account)}/teams`);
  const conn = await teamsConnectionOf(seat.accountId);
  const hidden = { account: seat.slug };
  const endpoint = `${env().publicUrl}/api/teams/messages/${seat.slug}`;
  const owner = seat.role === "owner";
  return (
    <main>
      <section className="panel" data-testid="teams-state">
        <h2>Microsoft Teams</h2>
        {conn ? (
          <p data-testid="teams-connected">
            Bot <code>{conn.appId}</code> of tenant <code>{conn.tenantId}</code>, connected since{" "}
            {conn.connectedAt.toISOString()} by <code>{conn.connectedBy}</code>.{" "}
            {conn.channelId ? (
              <>
                Asks and tasks are posted to channel <code>{conn.channelId}</code>.
              </>
            ) : (
              "No channel is set: nothing is posted."
            )}{" "}
            {conn.personalMessages ? "Personal messages are on." : "Personal messages are off."}
          </p>
        ) : (
          <p data-testid="teams-disconnected">Not connected.</p>
        )}
        <p className="hint">
          The bot&apos;s messaging endpoint: <code data-testid="teams-endpoint">{endpoint}</code>
        </p>
        {conn && owner && (
          <ActionForm
            action={disconnectTeamsAction}
            hidden={hidden}
            submit="Disconnect"
            danger
            confirm="Disconnect this account from Teams? Every person's Teams link is removed."
            testId="teams-disconnect"
          />
        )}
      </section>
      {!owner && (
        <p className="hint" data-testid="teams-owner-only">
          Only an owner of the account can connect, reconnect or disconnect Teams.
        </p>
      )}
      {owner && (
        <section className="panel">
          <h2>{conn ? "Reconnect" : "Connect"}</h2>
          <p className="hint">
            Register the bot and upload its app manifest as docs/notifications.md &quot;Microsoft Teams&quot; describes,
            then paste its ids and client secret. The Hub obtains an app token with them before storing anything; the
            secret is never shown again. A new app id, tenant or secret removes every person&apos;s Teams link.
          </p>
          <ActionForm action={connectTeamsAction} hidden={hidden} submit="Connect" testId="teams-connect">
            <label>
              Microsoft app id <input name="app_id" autoComplete="off" required />
            </label>
            <label>
              Tenant id <input name="tenant_id" autoComplete="off" required />
            </label>
            <label>
              Client secret <input name="app_secret" type="password" autoComplete="off" required />
            </label>
            <label>
              Channel conversation id (19:…@thread.tacv2; optional) <input name="channel_id" autoComplete="off" />
            </label>
            <label>
              Service URL of the channel (e.g. https://smba.trafficmanager.net/emea/; with the channel){" "}
              <input name="service_url" autoComplete="off" />
            </label>
            <label>
              <input type="checkbox" name="personal_messages" /> Personal messages to each person who linked their Teams
              user and may answer the item
            </label>
          </ActionForm>
        </section>
      )}
    </main>
  );
}

import { ActionForm } from "@/components/ActionForm";
import { sessionLimits } from "@/lib/env";
import { adminPage } from "@/lib/next/admin-page";
import { agentSessionVisibilityOf } from "@/lib/principals/accounts";
import { setAgentSessionVisibilityAction } from "./actions";

export const dynamic = "force-dynamic";

/**
 * The account's settings. Agent sessions (§16.4): whether the account's agents may list and read
 * each other's sessions — off by default, switched by an owner, and effective only where the Hub's
 * deployment ceiling (`MA2H_SESSION_AGENT_LIST_VISIBILITY`) allows it.
 */
export default async function AccountSettingsPage({ params }: { params: Promise<{ account: string }> }) {
  const { account } = await params;
  const { seat } = await adminPage(account, `/admin/${encodeURIComponent(account)}/settings`);
  const visible = await agentSessionVisibilityOf(seat.accountId);
  const ceiling = sessionLimits().agentListVisibility;
  const isOwner = seat.role === "owner";
  return (
    <main>
      <section className="panel" data-testid="session-visibility">
        <h2>Agent sessions</h2>
        <p className="hint">
          Every agent sees its own sessions. With this on, the agents of {seat.slug} may also list and read each
          other&apos;s sessions (<code>GET /v1/sessions</code> answers with <code>scope: &quot;account&quot;</code>) —
          for coordinating runs. People with a seat in the account always see every session on the agents&apos; pages.
        </p>
        <p data-testid="session-visibility-state">
          Now: <strong>{visible ? "on" : "off"}</strong> — agents{" "}
          {visible ? "may list each other's sessions" : "see only their own sessions"}.
        </p>
        {visible && !ceiling && (
          <p className="notice notice-warn" data-testid="session-visibility-ceiling">
            This Hub does not let agents list each other&apos;s sessions (
            <code>MA2H_SESSION_AGENT_LIST_VISIBILITY</code> is off): the setting has no effect until its operator allows
            it.
          </p>
        )}
        {isOwner ? (
          <ActionForm
            action={setAgentSessionVisibilityAction}
            hidden={{ account: seat.slug, enabled: visible ? "off" : "on" }}
            submit={visible ? "Turn off" : "Let agents list each other's sessions"}
            testId="toggle-session-visibility"
            className="inline-form"
          />
        ) : (
          <p className="muted" data-testid="session-visibility-owner-only">
            Only an owner of {seat.slug} can change this.
          </p>
        )}
      </section>
    </main>
  );
}

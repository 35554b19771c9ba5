import { ActionForm } from "@/components/ActionForm";
import { sessionLimits } from "@/lib/env";
import { adminPage } from "@/lib/next/admin-page";
import { agentSessionVisibilityOf, interAgentStateOf } from "@/lib/principals/accounts";
import { setAgentSessionVisibilityAction, setInterAgentAction } from "./actions";

export const dynamic = "force-dynamic";

/**
 * The account's settings. Agent sessions (§16.4): whether the account's agents may list and read
 * each other's sessions — off by default, switched by an owner, and effective only where the Hub's
 * deployment ceiling (`MA2H_SESSION_AGENT_LIST_VISIBILITY`) allows it. Inter-agent messages (§8.0):
 * whether the account's agents may address each other — off by default, opted into only by an owner
 * ("an explicit account-owner act"), and open only while the Hub's ceiling (`MA2H_INTER_AGENT`) is on;
 * who may message a given agent is set on that agent's page (§13.5).
 */
export default async function AccountSettingsPage({ params }: { params: Promise<{ account: string }> }) {
  const { account } = await params;
  const { seat } = await adminPage(account, `/admin/${encodeURIComponent(account)}/settings`);
  const visible = await agentSessionVisibilityOf(seat.accountId);
  const ceiling = sessionLimits().agentListVisibility;
  const isOwner = seat.role === "owner";
  const interAgent = await interAgentStateOf(seat.accountId);
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
      <section className="panel" data-testid="inter-agent">
        <h2>Inter-agent messages</h2>
        <p className="hint">
          With this on, the agents of {seat.slug} may send messages to each other (a submit with <code>to</code>) — and
          only to agents of this account. Each agent&apos;s page says which agents may message it (any agent of the
          account unless restricted there).
        </p>
        <p data-testid="inter-agent-state">
          Now: <strong>{interAgent.effective ? "on" : "off"}</strong> — agents{" "}
          {interAgent.effective ? "may message each other" : "may not message each other"}.
        </p>
        {!interAgent.ceiling && (
          <p className="notice notice-warn" data-testid="inter-agent-ceiling">
            This Hub does not offer inter-agent messages (<code>MA2H_INTER_AGENT</code> is off)
            {interAgent.optedIn
              ? ": the account has opted in, but that has no effect until the Hub's operator turns them on."
              : ": they cannot be turned on until the Hub's operator allows them."}
          </p>
        )}
        {!isOwner ? (
          <p className="muted" data-testid="inter-agent-owner-only">
            Only an owner of {seat.slug} can turn this on or off.
          </p>
        ) : interAgent.optedIn ? (
          <ActionForm
            action={setInterAgentAction}
            hidden={{ account: seat.slug, enabled: "off" }}
            submit="Turn off"
            testId="toggle-inter-agent"
            className="inline-form"
          />
        ) : interAgent.ceiling ? (
          <ActionForm
            action={setInterAgentAction}
            hidden={{ account: seat.slug, enabled: "on" }}
            submit="Let agents message each other"
            testId="toggle-inter-agent"
            className="inline-form"
          />
        ) : (
          <button type="button" className="btn" disabled data-testid="toggle-inter-agent-disabled">
            Let agents message each other
          </button>
        )}
      </section>
    </main>
  );
}

/**
 * "Who may message this agent" on an agent's page (§13.5): any agent of the account, or only the
 * listed ones (possibly none). Owners and admins get the form — the account's other agents to tick,
 * and a field for ids not created yet (kept, and named as not agents of the account); members and
 * viewers read the policy. The server checks the role again (app/inbox/agents/actions.ts).
 */
import { ActionForm } from "@/components/ActionForm";
import type { AgentSendersView } from "@/lib/inbox/agent-senders";
import { setAgentSendersAction } from "../agents/actions";

export function SenderAllowlist({ account, agent, view }: { account: string; agent: string; view: AgentSendersView }) {
  const listed = "allow" in view.senders ? view.senders.allow : [];
  const restricted = "allow" in view.senders;
  // The ids to tick: the account's other agents, then listed ids that name none of them.
  const choices = [...view.candidates, ...listed.filter((id) => !view.candidates.includes(id))];
  return (
    <section className="sender-allowlist" data-testid="sender-allowlist">
      <h2>Who may message this agent</h2>
      {!view.interAgentOpen && (
        <p className="hint" data-testid="sender-allowlist-leg-off">
          Agents of {account} cannot message each other now (an owner turns that on in the account&apos;s settings);
          this list applies once they can.
        </p>
      )}
      <p data-testid="sender-allowlist-state">
        {restricted ? (
          listed.length === 0 ? (
            <>No agent — every message from another agent is refused.</>
          ) : (
            <>
              Only these agents:{" "}
              {listed.map((id, i) => (
                <span key={id}>
                  {i > 0 && ", "}
                  <code>{id}</code>
                </span>
              ))}
            </>
          )
        ) : (
          <>Any agent in this account.</>
        )}
      </p>
      {view.unknown.length > 0 && (
        <p className="hint" data-testid="sender-allowlist-unknown">
          Not agents of {account} (yet): {view.unknown.join(", ")}.
        </p>
      )}
      {view.canEdit ? (
        <ActionForm
          action={setAgentSendersAction}
          hidden={{ account, agent }}
          submit="Save"
          testId="sender-allowlist-form"
          className="sender-allowlist-form"
        >
          <ul className="checklist">
            <li>
              <label>
                <input type="radio" name="senders" value="any" defaultChecked={!restricted} data-testid="senders-any" />
                Any agent in this account
              </label>
            </li>
            <li>
              <label>
                <input
                  type="radio"
                  name="senders"
                  value="only"
                  defaultChecked={restricted}
                  data-testid="senders-only"
                />
                Only these agents (none ticked: no agent)
              </label>
              <ul className="checklist sender-choices">
                {choices.map((id) => (
                  <li key={id}>
                    <label>
                      <input
                        type="checkbox"
                        name="allow"
                        value={id}
                        defaultChecked={listed.includes(id)}
                        data-testid="senders-allow"
                      />
                      <code>{id}</code>
                    </label>
                  </li>
                ))}
              </ul>
              <label className="sender-more">
                Other agent ids, comma-separated (agents not created yet)
                <input name="allow_more" autoComplete="off" data-testid="senders-allow-more" />
              </label>
            </li>
          </ul>
        </ActionForm>
      ) : (
        <p className="hint" data-testid="sender-allowlist-readonly">
          Only an owner or admin of {account} can change this.
        </p>
      )}
    </section>
  );
}

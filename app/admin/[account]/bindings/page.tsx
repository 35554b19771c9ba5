import { listAgents } from "@/lib/principals/agents";
import { listAccountBindings } from "@/lib/principals/bindings";
import {
  addBindingAction,
  addBindingSecretAction,
  bindingWebhooksAction,
  removeBindingSecretAction,
  revokeBindingAction,
} from "../../actions";
import { ActionForm } from "@/components/ActionForm";
import { When } from "@/components/When";
import { adminPage } from "@/lib/next/admin-page";

export const dynamic = "force-dynamic";

/**
 * Callback bindings (§9.4): adding one is the approval of that origin (+ path prefix) for one
 * agent's push callbacks. Secrets are write-only — only their ref names are ever shown.
 */
export default async function BindingsPage({ params }: { params: Promise<{ account: string }> }) {
  const { account } = await params;
  const { seat } = await adminPage(account, `/admin/${encodeURIComponent(account)}/bindings`);
  const [bindings, agents] = await Promise.all([listAccountBindings(seat.accountId), listAgents(seat.accountId)]);
  const hidden = { account: seat.slug };
  return (
    <main>
      <section className="panel">
        <h2>Approved callback origins</h2>
        {bindings.length === 0 ? (
          <p className="empty">No bindings: every push callback is refused at submit.</p>
        ) : (
          <table className="admin-table" data-testid="bindings-table">
            <thead>
              <tr>
                <th>Agent</th>
                <th>Origin and path prefix</th>
                <th>Secret refs</th>
                <th>Standard Webhooks</th>
                <th>Approved</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {bindings.map((b) => (
                <tr key={b.id} data-testid="binding-row" data-binding={b.id} data-origin={b.origin}>
                  <td>
                    <code>{b.agentId}</code>
                  </td>
                  <td>
                    <code>
                      {b.origin}
                      {b.pathPrefix === "/" ? "" : b.pathPrefix}
                    </code>
                  </td>
                  <td>
                    <ul className="refs">
                      {b.secretRefs.map((ref) => (
                        <li key={ref}>
                          <code>{ref}</code>
                          {b.secretRefs.length > 1 && (
                            <ActionForm
                              action={removeBindingSecretAction}
                              hidden={{ ...hidden, binding: b.id, secret_ref: ref }}
                              submit="Remove"
                              danger
                              confirm={`Remove secret ${ref}? Pushes naming it stop.`}
                              testId={`remove-secret-${b.id}-${ref}`}
                              className="inline-form"
                            />
                          )}
                        </li>
                      ))}
                    </ul>
                    <details>
                      <summary>Add a secret (rotation)</summary>
                      <ActionForm
                        action={addBindingSecretAction}
                        hidden={{ ...hidden, binding: b.id }}
                        submit="Add secret"
                        testId={`add-secret-${b.id}`}
                      >
                        <label>
                          Ref name <input name="secret_ref" required maxLength={200} autoComplete="off" />
                        </label>
                        <label>
                          Secret{" "}
                          <input name="secret" type="password" required maxLength={8192} autoComplete="new-password" />
                        </label>
                      </ActionForm>
                    </details>
                  </td>
                  <td data-testid={`webhooks-${b.id}`} data-on={b.standardWebhooks ? "true" : "false"}>
                    <span className="tag">{b.standardWebhooks ? "on" : "off"}</span>
                    {/* One form for on and rotate, in the same place either way: the page re-renders on
                        the change, and the secret it shows once must survive that. */}
                    <ActionForm
                      action={bindingWebhooksAction}
                      hidden={{ ...hidden, binding: b.id, change: b.standardWebhooks ? "rotate" : "on" }}
                      submit={b.standardWebhooks ? "Rotate secret" : "Turn on"}
                      confirm={
                        b.standardWebhooks
                          ? "Rotate the Standard Webhooks secret? The old one stops verifying at once."
                          : undefined
                      }
                      testId={`webhooks-set-${b.id}`}
                      className="inline-form"
                    />
                    {b.standardWebhooks && (
                      <ActionForm
                        action={bindingWebhooksAction}
                        hidden={{ ...hidden, binding: b.id, change: "off" }}
                        submit="Turn off"
                        danger
                        testId={`webhooks-off-${b.id}`}
                        className="inline-form"
                      />
                    )}
                  </td>
                  <td>
                    <When at={b.createdAt} />
                  </td>
                  <td>
                    <ActionForm
                      action={revokeBindingAction}
                      hidden={{ ...hidden, binding: b.id }}
                      submit="Revoke"
                      danger
                      confirm={`Revoke the binding for ${b.origin}? Pending pushes to it stop.`}
                      testId={`revoke-binding-${b.id}`}
                      className="inline-form"
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="panel">
        <h2>Approve a callback origin</h2>
        <p className="hint">
          Approve only an origin the agent's owner controls: the Hub attaches the named secret to pushes sent there. The
          origin is
          <code> scheme://host[:port]</code>, without a path; the optional path prefix narrows it. The secret is sealed
          at rest and never shown again — agents name it in <code>callback.auth.secret_ref</code> (or{" "}
          <code>token_ref</code>).
        </p>
        {agents.length === 0 ? (
          <p className="muted">Create an agent first.</p>
        ) : (
          <ActionForm action={addBindingAction} hidden={hidden} submit="Approve" testId="add-binding">
            <label>
              Agent{" "}
              <select name="agent" required data-testid="binding-agent">
                {agents.map((a) => (
                  <option key={a.id} value={a.id}>
                    {a.agentId}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Origin{" "}
              <input
                name="origin"
                required
                placeholder="https://hooks.example.com"
                autoComplete="off"
                data-testid="binding-origin"
              />
            </label>
            <label>
              Path prefix <input name="path_prefix" placeholder="/" autoComplete="off" data-testid="binding-prefix" />
            </label>
            <label>
              Secret ref{" "}
              <input name="secret_ref" required maxLength={200} autoComplete="off" data-testid="binding-ref" />
            </label>
            <label>
              Secret{" "}
              <input
                name="secret"
                type="password"
                required
                maxLength={8192}
                autoComplete="new-password"
                data-testid="binding-secret"
              />
            </label>
          </ActionForm>
        )}
      </section>
    </main>
  );
}

import Link from "next/link";
import { listAgents } from "@/lib/principals/agents";
import { sponsorsByAgent } from "@/lib/principals/sponsors";
import { createAgentAction } from "../../actions";
import { ActionForm } from "@/components/ActionForm";
import { When } from "@/components/When";
import { adminPage } from "@/lib/next/admin-page";

export const dynamic = "force-dynamic";

/** Agents of the account with their sponsors and last activity; create one (its first key is shown once). */
export default async function AgentsPage({ params }: { params: Promise<{ account: string }> }) {
  const { account } = await params;
  const { seat } = await adminPage(account, `/admin/${encodeURIComponent(account)}/agents`);
  const [agents, sponsors] = await Promise.all([listAgents(seat.accountId), sponsorsByAgent(seat.accountId)]);
  const base = `/admin/${encodeURIComponent(seat.slug)}`;
  return (
    <main>
      <section className="panel">
        <h2>Agents</h2>
        {agents.length === 0 ? (
          <p className="empty">No agents yet.</p>
        ) : (
          <table className="admin-table" data-testid="agents-table">
            <thead>
              <tr>
                <th>agent.id</th>
                <th>Sponsors</th>
                <th>Active keys</th>
                <th>Last activity</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {agents.map((a) => (
                <tr key={a.id} data-testid="agent-row" data-agent={a.agentId}>
                  <td>
                    <Link prefetch={false} href={`${base}/agents/${encodeURIComponent(a.id)}`}>
                      <code>{a.agentId}</code>
                    </Link>
                  </td>
                  <td data-testid="agent-sponsors">
                    {(sponsors.get(a.id) ?? []).map((r, i) => (
                      <span key={r}>
                        {i > 0 && ", "}
                        <code>{r}</code>
                      </span>
                    ))}
                  </td>
                  <td>{a.activeKeys}</td>
                  <td>
                    <When at={a.lastActivityAt} />
                  </td>
                  <td>
                    <When at={a.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="panel">
        <h2>Create an agent</h2>
        <p className="hint">
          The <code>agent.id</code> its messages carry, e.g. <code>deploybot/dev-team</code>. It gets its first API key.
        </p>
        <ActionForm
          action={createAgentAction}
          hidden={{ account: seat.slug }}
          submit="Create agent"
          testId="create-agent"
        >
          <label>
            agent.id <input name="agent_id" required maxLength={200} autoComplete="off" data-testid="agent-id-input" />
          </label>
        </ActionForm>
      </section>
    </main>
  );
}

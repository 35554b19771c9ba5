import { requireHuman } from "@/app/_auth/current-human";
import { listTokens } from "@/lib/principals/tokens";
import { ActionForm } from "../../admin/_components/action-form";
import { When } from "../../admin/_components/when";
import { createTokenAction, revokeTokenAction } from "../actions";

export const dynamic = "force-dynamic";

/** My personal access tokens: create (shown once), list with last use, revoke. */
export default async function TokensPage() {
  const human = await requireHuman("/settings/tokens");
  const tokens = await listTokens(human.userId);
  return (
    <main>
      <section className="panel">
        <h1>Personal access tokens</h1>
        <p className="hint">
          A token (<code>ma2h_pat_…</code>) lets a script resolve messages over <code>/v1</code> as you — in every account you have a
          seat in, with your role there. Treat it like a password; revoke it when you no longer need it.
        </p>
        {tokens.length === 0 ? (
          <p className="empty">You have no tokens.</p>
        ) : (
          <table className="admin-table" data-testid="tokens-table">
            <thead>
              <tr>
                <th>Token</th>
                <th>Created</th>
                <th>Last used</th>
                <th>State</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {tokens.map((t) => (
                <tr key={t.id} data-testid="token-row" data-token={t.id} data-state={t.revokedAt ? "revoked" : "active"}>
                  <td>
                    <code>{t.id}</code>
                  </td>
                  <td>
                    <When at={t.createdAt} />
                  </td>
                  <td>
                    <When at={t.lastUsedAt} />
                  </td>
                  <td>{t.revokedAt ? <>revoked <When at={t.revokedAt} /></> : "active"}</td>
                  <td>
                    {!t.revokedAt && (
                      <ActionForm
                        action={revokeTokenAction}
                        hidden={{ token: t.id }}
                        submit="Revoke"
                        danger
                        confirm={`Revoke ${t.id}? Scripts using it stop at once.`}
                        testId={`revoke-token-${t.id}`}
                        className="inline-form"
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="panel">
        <h2>New token</h2>
        <ActionForm action={createTokenAction} submit="Create token" testId="create-token" />
      </section>
    </main>
  );
}

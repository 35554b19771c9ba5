import { requireHuman } from "@/lib/next/current-human";
import { listTokens } from "@/lib/principals/tokens";
import { ActionForm } from "@/components/ActionForm";
import { CredentialTable } from "@/components/CredentialTable";
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
          A token (<code>ma2h_pat_…</code>) lets a script resolve messages over <code>/v1</code> as you — in every
          account you have a seat in, with your role there. Treat it like a password; revoke it when you no longer need
          it.
        </p>
        {tokens.length === 0 ? (
          <p className="empty">You have no tokens.</p>
        ) : (
          <CredentialTable
            rows={tokens}
            label="Token"
            testId="tokens-table"
            rowTestId="token-row"
            rowKey="data-token"
            revoke={(r) => (
              <ActionForm
                action={revokeTokenAction}
                hidden={{ token: r.id }}
                submit="Revoke"
                danger
                confirm={`Revoke ${r.id}? Scripts using it stop at once.`}
                testId={`revoke-token-${r.id}`}
                className="inline-form"
              />
            )}
          />
        )}
      </section>
      <section className="panel">
        <h2>New token</h2>
        <ActionForm action={createTokenAction} submit="Create token" testId="create-token" />
      </section>
    </main>
  );
}

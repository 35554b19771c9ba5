import Link from "next/link";
import { ActionForm } from "@/components/ActionForm";
import { When } from "@/components/When";
import { requireHuman } from "@/lib/next/current-human";
import { listIdentities } from "@/lib/principals/identities";
import { unlinkIdentityAction } from "./actions";

export const dynamic = "force-dynamic";

/** The person's linked sign-in identities: issuer, subject, when linked, last sign-in; remove one of several. */
export default async function IdentitiesPage() {
  const human = await requireHuman("/settings/identities");
  const identities = await listIdentities(human.userId);
  const removable = identities.length > 1;
  return (
    <main>
      <section className="panel">
        <h1>Sign-in identities</h1>
        <p className="hint">
          The identities you sign in with, each an issuer and the subject it knows you by. You can remove one while
          another remains; removing one signs you out everywhere except this browser.
        </p>
        {identities.length === 0 ? (
          <p className="empty">No identity is linked yet.</p>
        ) : (
          <table className="admin-table" data-testid="identities-table">
            <thead>
              <tr>
                <th>Issuer</th>
                <th>Subject</th>
                <th>Linked</th>
                <th>Last sign-in</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {identities.map((i) => (
                <tr key={i.id} data-testid="identity-row" data-identity={i.id} data-subject={i.subject}>
                  <td>
                    <code>{i.issuer}</code>
                  </td>
                  <td>
                    <code>{i.subject}</code>
                  </td>
                  <td>
                    <When at={i.linkedAt} />
                  </td>
                  <td>
                    <When at={i.lastSignInAt} />
                  </td>
                  <td>
                    {removable && (
                      <ActionForm
                        action={unlinkIdentityAction}
                        hidden={{ identity: i.id }}
                        submit="Remove"
                        danger
                        confirm={`Remove this sign-in (${i.subject})? It will no longer open your account.`}
                        testId={`unlink-identity-${i.id}`}
                        className="inline-form"
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {!removable && identities.length === 1 && (
          <p className="hint" data-testid="identity-last">
            This is your only identity, so it cannot be removed.
          </p>
        )}
      </section>
      <section className="panel">
        <h2>Link another</h2>
        <p className="hint">
          While signed in here,{" "}
          <Link prefetch={false} href="/signin?callbackUrl=%2Fsettings%2Fidentities" data-testid="link-identity">
            sign in again
          </Link>{" "}
          with another identity whose provider confirms your email address: it is linked to you.
        </p>
      </section>
    </main>
  );
}

import Link from "next/link";
import { notFound } from "next/navigation";
import { agentInAccount } from "@/lib/principals/agents";
import { listKeys } from "@/lib/principals/api-keys";
import { listBindings } from "@/lib/principals/bindings";
import { listGroups } from "@/lib/groups/groups";
import { listMembers } from "@/lib/principals/members";
import { listSponsors } from "@/lib/principals/sponsors";
import { HubError } from "@ma2h/protocol/errors";
import { addSponsorAction, removeSponsorAction, revokeKeyAction, rotateKeyAction } from "../../../actions";
import { ActionForm } from "@/components/ActionForm";
import { CredentialTable } from "@/components/CredentialTable";
import { adminPage } from "@/lib/next/admin-page";

export const dynamic = "force-dynamic";

/**
 * One agent: its sponsors (owners change them, admins read them), its keys (rotate = add a key; the
 * old ones work until revoked) and its bindings.
 */
export default async function AgentPage({ params }: { params: Promise<{ account: string; id: string }> }) {
  const { account, id } = await params;
  const { seat } = await adminPage(account, `/admin/${encodeURIComponent(account)}/agents/${encodeURIComponent(id)}`);
  const agent = await agentInAccount(seat.accountId, id).catch((err: unknown) => {
    if (err instanceof HubError && err.code === "not_found") notFound();
    throw err;
  });
  const ref = { agentId: agent.agentId, accountSlug: seat.slug };
  const isOwner = seat.role === "owner";
  const [keys, bindings, sponsors, people, groups] = await Promise.all([
    listKeys(ref),
    listBindings(ref),
    listSponsors(agent.id),
    // The choices of the add form, which only owners get.
    isOwner ? listMembers(seat.accountId) : Promise.resolve([]),
    isOwner ? listGroups(seat.accountId) : Promise.resolve([]),
  ]);
  const base = `/admin/${encodeURIComponent(seat.slug)}`;
  const active = keys.filter((k) => !k.revokedAt).length;
  const hidden = { account: seat.slug, agent: agent.id };
  const candidates = {
    people: people.map((p) => `human:${p.handle}`).filter((r) => !sponsors.includes(r)),
    groups: groups.map((g) => `group:${g.name}`).filter((r) => !sponsors.includes(r)),
  };
  return (
    <main>
      <nav className="crumbs">
        <Link prefetch={false} href={`${base}/agents`}>
          ← Agents
        </Link>
      </nav>
      <section className="panel">
        <h2>
          <code data-testid="agent-title">{agent.agentId}</code>
        </h2>
        <p>
          <Link
            prefetch={false}
            href={`/inbox/agents/${encodeURIComponent(seat.slug)}/${agent.agentId.split("/").map(encodeURIComponent).join("/")}`}
            data-testid="agent-inbox-page"
          >
            Sessions, Stop agent and directives
          </Link>{" "}
          — on the agent&apos;s page in the inbox.
        </p>
        <h3>API keys</h3>
        <CredentialTable
          rows={keys}
          label="Key"
          testId="keys-table"
          rowTestId="key-row"
          rowKey="data-key"
          revoke={(r) => (
            <ActionForm
              action={revokeKeyAction}
              hidden={{ account: seat.slug, key: r.id }}
              submit="Revoke"
              danger
              confirm={
                active === 1 ? "This is the agent's last active key: it will be locked out. Revoke?" : `Revoke ${r.id}?`
              }
              testId={`revoke-key-${r.id}`}
              className="inline-form"
            />
          )}
        />
        <h3>Rotate</h3>
        <p className="hint">
          Adds a new key. The current keys keep working until you revoke them, so the agent can switch over first.
        </p>
        <ActionForm
          action={rotateKeyAction}
          hidden={{ account: seat.slug, agent: agent.id }}
          submit="Add a new key"
          testId="rotate-key"
        />
      </section>
      <section className="panel" data-testid="sponsors">
        <h3>Sponsors</h3>
        <p className="hint">
          The people accountable for this agent: people of {seat.slug} (<code>human:&lt;handle&gt;</code>) or its{" "}
          <Link prefetch={false} href={`${base}/groups`}>
            groups
          </Link>{" "}
          (<code>group:&lt;name&gt;</code>). Whoever creates an agent here is its first sponsor.
        </p>
        {sponsors.length === 0 ? (
          <p className="muted" data-testid="no-sponsors">
            None.
          </p>
        ) : (
          <ul className="refs">
            {sponsors.map((s) => (
              <li key={s} data-testid="sponsor" data-sponsor={s}>
                <code>{s}</code>
                {isOwner && (
                  <ActionForm
                    action={removeSponsorAction}
                    hidden={{ ...hidden, sponsor: s }}
                    submit="Remove"
                    danger
                    testId={`remove-sponsor-${s}`}
                    className="inline-form"
                  />
                )}
              </li>
            ))}
          </ul>
        )}
        {!isOwner ? (
          <p className="muted" data-testid="sponsors-owner-only">
            Only an owner of {seat.slug} can change sponsors.
          </p>
        ) : candidates.people.length + candidates.groups.length === 0 ? (
          <p className="muted">Every person and group of {seat.slug} sponsors this agent.</p>
        ) : (
          <ActionForm action={addSponsorAction} hidden={hidden} submit="Add sponsor" testId="add-sponsor">
            <label>
              Person or group{" "}
              <select name="sponsor" required data-testid="add-sponsor-select">
                {candidates.people.length > 0 && (
                  <optgroup label="People">
                    {candidates.people.map((r) => (
                      <option key={r} value={r}>
                        {r}
                      </option>
                    ))}
                  </optgroup>
                )}
                {candidates.groups.length > 0 && (
                  <optgroup label="Groups">
                    {candidates.groups.map((r) => (
                      <option key={r} value={r}>
                        {r}
                      </option>
                    ))}
                  </optgroup>
                )}
              </select>
            </label>
          </ActionForm>
        )}
      </section>
      <section className="panel">
        <h3>Callback bindings</h3>
        {bindings.length === 0 ? (
          <p className="muted">None — push callbacks of this agent are refused at submit.</p>
        ) : (
          <ul>
            {bindings.map((b) => (
              <li key={b.id}>
                <code>
                  {b.origin}
                  {b.pathPrefix === "/" ? "" : b.pathPrefix}
                </code>{" "}
                — refs {b.secretRefs.join(", ")}
              </li>
            ))}
          </ul>
        )}
        <Link prefetch={false} href={`${base}/bindings`}>
          Manage bindings
        </Link>
      </section>
    </main>
  );
}

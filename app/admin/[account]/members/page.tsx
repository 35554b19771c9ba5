import { listInvitations } from "@/lib/principals/invitations";
import { listMembers } from "@/lib/principals/members";
import { ROLES } from "@/lib/principals/types";
import { addMemberAction, changeRoleAction, removeMemberAction, revokeInvitationAction } from "../../actions";
import { ActionForm } from "@/components/ActionForm";
import { When } from "@/components/When";
import { adminPage } from "@/lib/next/admin-page";

export const dynamic = "force-dynamic";

function RoleSelect({ value, testId, label }: { value?: string; testId: string; label?: string }) {
  return (
    <select name="role" defaultValue={value ?? "member"} data-testid={testId} aria-label={label}>
      {ROLES.map((r) => (
        <option key={r} value={r}>
          {r}
        </option>
      ))}
    </select>
  );
}

/**
 * Members: add by email (no email is sent; a new person signs in with SSO, invite-only; a person who
 * already sits in another account is invited and accepts in their inbox — listed here as "invited"
 * until then, revocable), change a role, remove (their access to this account ends at once). lib/
 * keeps at least one owner.
 */
export default async function MembersPage({ params }: { params: Promise<{ account: string }> }) {
  const { account } = await params;
  const { seat } = await adminPage(account, `/admin/${encodeURIComponent(account)}/members`);
  const members = await listMembers(seat.accountId);
  const invitations = await listInvitations(seat.accountId);
  const hidden = { account: seat.slug };
  return (
    <main>
      <section className="panel">
        <h2>Members</h2>
        <table className="admin-table" data-testid="members-table">
          <thead>
            <tr>
              <th>Handle</th>
              <th>Email</th>
              <th>Role</th>
              <th>Added</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {members.map((m) => (
              <tr key={m.membershipId} data-testid="member-row" data-handle={m.handle} data-role={m.role}>
                <td>
                  <code>human:{m.handle}</code>
                </td>
                <td>{m.email}</td>
                <td>
                  <ActionForm
                    action={changeRoleAction}
                    hidden={{ ...hidden, member: m.membershipId }}
                    submit="Change"
                    testId={`role-${m.handle}`}
                    className="inline-form"
                  >
                    <RoleSelect value={m.role} testId={`role-${m.handle}-select`} label={`Role of ${m.handle}`} />
                  </ActionForm>
                </td>
                <td>
                  <When at={m.createdAt} />
                </td>
                <td>
                  <ActionForm
                    action={removeMemberAction}
                    hidden={{ ...hidden, member: m.membershipId }}
                    submit="Remove"
                    danger
                    confirm={`Remove ${m.handle} from ${seat.slug}? Their access to it ends at once.`}
                    testId={`remove-${m.handle}`}
                    className="inline-form"
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {invitations.length > 0 && (
        <section className="panel">
          <h2>Invited</h2>
          <p className="hint">
            These people sit in another account of this Hub: the seat is theirs once they accept it in their inbox.
            Until then they see nothing of this account and nothing of it reaches them.
          </p>
          <table className="admin-table" data-testid="invitations-table">
            <thead>
              <tr>
                <th>Handle</th>
                <th>Email</th>
                <th>Role</th>
                <th>Status</th>
                <th>Invited</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {invitations.map((i) => (
                <tr
                  key={i.id}
                  data-testid="invitation-row"
                  data-handle={i.handle}
                  data-status={i.expired ? "expired" : "invited"}
                >
                  <td>
                    <code>human:{i.handle}</code>
                  </td>
                  <td>{i.email}</td>
                  <td>{i.role}</td>
                  <td>{i.expired ? "expired" : "invited"}</td>
                  <td>
                    <When at={i.createdAt} /> by <code>{i.invitedBy}</code>
                  </td>
                  <td>
                    <ActionForm
                      action={revokeInvitationAction}
                      hidden={{ ...hidden, invitation: i.id }}
                      submit="Revoke"
                      danger
                      confirm={`Revoke the invitation of ${i.handle} to ${seat.slug}?`}
                      testId={`revoke-invitation-${i.handle}`}
                      className="inline-form"
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      <section className="panel">
        <h2>Add a member</h2>
        <p className="hint">
          This invites the person; the seat is theirs only once they accept it in their inbox. No email is sent: tell
          them to sign in with your identity provider using this address (which it must assert verified). The handle is
          how the Hub names them to agents, <code>human:&lt;handle&gt;</code>.
        </p>
        <ActionForm action={addMemberAction} hidden={hidden} submit="Add member" testId="add-member">
          <label>
            Email <input name="email" type="email" required autoComplete="off" data-testid="member-email" />
          </label>
          <label>
            Handle{" "}
            <input
              name="handle"
              required
              maxLength={64}
              pattern="[a-z0-9._\-]{1,64}"
              autoComplete="off"
              data-testid="member-handle"
            />
          </label>
          {/* biome-ignore lint/a11y/noLabelWithoutControl: RoleSelect renders the <select> this label wraps */}
          <label>
            Role <RoleSelect testId="member-role" />
          </label>
        </ActionForm>
      </section>
    </main>
  );
}

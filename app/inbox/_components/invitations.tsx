import { ActionForm } from "@/components/ActionForm";
import { When } from "@/components/When";
import { pendingInvitationsFor } from "@/lib/principals/invitations";
import { acceptInvitationAction, declineInvitationAction } from "../invitation-actions";

/**
 * The signed-in person's pending invitations to other accounts, above their inbox: each says
 * which account, the handle and role offered and who invited; accept creates the seat, decline ends
 * it. Nothing of that account reaches them until they accept. Renders nothing when there are none.
 */
export async function PendingInvitations({ userId }: { userId: string }) {
  const invitations = await pendingInvitationsFor(userId);
  if (invitations.length === 0) return null;
  return (
    <section className="panel invitations" data-testid="invitations" aria-label="Invitations">
      <h2>Invitations</h2>
      <ul>
        {invitations.map((i) => (
          <li key={i.id} data-testid="invitation" data-account={i.accountSlug}>
            <span>
              <code>{i.invitedBy}</code> invites you to <strong>{i.accountSlug}</strong> as{" "}
              <code>human:{i.handle}</code> ({i.role}); open until <When at={i.expiresAt} />.
            </span>
            <ActionForm
              action={acceptInvitationAction}
              hidden={{ invitation: i.id }}
              submit="Accept"
              testId={`accept-invitation-${i.accountSlug}`}
              className="invitation-form"
            />
            <ActionForm
              action={declineInvitationAction}
              hidden={{ invitation: i.id }}
              submit="Decline"
              danger
              confirm={`Decline the invitation to ${i.accountSlug}?`}
              testId={`decline-invitation-${i.accountSlug}`}
              className="invitation-form"
            />
          </li>
        ))}
      </ul>
    </section>
  );
}

"use server";
/**
 * Answering an invitation (lib/principals/invitations.ts), as the signed-in person only: the
 * invitation must be theirs (anyone else's id is "not found"), and accepting creates the seat in
 * one transaction with the handle and role they were invited with.
 */
import { revalidatePath } from "next/cache";
import { personAction } from "@/lib/next/action";
import type { ActionState } from "@/lib/next/action-state";
import { field } from "@/lib/next/form";
import { acceptInvitation, declineInvitation } from "@/lib/principals/invitations";

export async function acceptInvitationAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return personAction({ signInReturnTo: "/inbox" }, async ({ userId }) => {
    const r = await acceptInvitation(userId, field(form, "invitation"));
    revalidatePath("/", "layout");
    return { ok: true, message: `You are ${r.handle} (${r.role}) in ${r.accountSlug} now.` };
  });
}

export async function declineInvitationAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return personAction({ signInReturnTo: "/inbox" }, async ({ userId }) => {
    const r = await declineInvitation(userId, field(form, "invitation"));
    revalidatePath("/inbox");
    return { ok: true, message: `Invitation to ${r.accountSlug} declined.` };
  });
}

"use server";
/**
 * A person's own personal access tokens: every member, for themselves only. The person is the
 * session's; a token id of someone else is 404 and untouched (lib/principals/tokens).
 */
import { revalidatePath } from "next/cache";
import { personAction } from "@/lib/next/action";
import type { ActionState } from "@/lib/next/action-state";
import { field } from "@/lib/next/form";
import { createTokenForUser, revokeToken } from "@/lib/principals/tokens";

export async function createTokenAction(_prev: ActionState, _form: FormData): Promise<ActionState> {
  return personAction({}, async ({ userId }) => {
    const t = await createTokenForUser(userId, { self: true });
    revalidatePath("/settings/tokens");
    return { ok: true, message: `Token ${t.id} created.`, secret: t.token, secretLabel: "Personal access token" };
  });
}

export async function revokeTokenAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return personAction({}, async ({ userId }) => {
    const r = await revokeToken(field(form, "token"), { self: true, owner: userId });
    revalidatePath("/settings/tokens");
    return { ok: true, message: `Token ${r.id} revoked.` };
  });
}

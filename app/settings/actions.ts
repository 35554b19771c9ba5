"use server";
/**
 * A person's own personal access tokens (issue #6 item 4): every member, for themselves only. The
 * person is the session's; a token id of someone else is 404 and untouched (lib/principals/tokens).
 */
import { revalidatePath } from "next/cache";
import { assertSameOrigin } from "@/app/_auth/same-origin";
import { currentHuman } from "@/app/_auth/current-human";
import { createTokenForUser, revokeToken } from "@/lib/principals/tokens";
import { Refused } from "../admin/_lib/guard";
import { field, perform, type ActionState } from "../admin/_lib/result";

async function me(): Promise<string> {
  await assertSameOrigin();
  const human = await currentHuman();
  if (!human) throw new Refused();
  return human.userId;
}

export async function createTokenAction(_prev: ActionState, _form: FormData): Promise<ActionState> {
  return perform(async () => {
    const userId = await me();
    const t = await createTokenForUser(userId, { self: true });
    revalidatePath("/settings/tokens");
    return { ok: true, message: `Token ${t.id} created.`, secret: t.token, secretLabel: "Personal access token" };
  });
}

export async function revokeTokenAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return perform(async () => {
    const userId = await me();
    const r = await revokeToken(field(form, "token"), { self: true, owner: userId });
    revalidatePath("/settings/tokens");
    return { ok: true, message: `Token ${r.id} revoked.` };
  });
}

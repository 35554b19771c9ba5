"use server";
/** The account's standing rules: an owner or admin revokes any of them (audited as that person). */
import { revalidatePath } from "next/cache";
import { adminAction } from "@/lib/next/action";
import type { ActionState } from "@/lib/next/action-state";
import { field } from "@/lib/next/form";
import { revokeRule } from "@/lib/standing-rules/store";

export async function revokeRuleAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ human, seat }) => {
    const r = await revokeRule(seat.accountId, field(form, "rule"), { userId: human.userId });
    revalidatePath(`/admin/${encodeURIComponent(seat.slug)}/rules`);
    return { ok: true, message: `Rule ${r.id} revoked: it answers nothing from now on.` };
  });
}

"use server";
/** A person's own standing rules: revoke one (lib/standing-rules/store.ts checks it is theirs). */
import { revalidatePath } from "next/cache";
import { seatAction } from "@/lib/next/action";
import type { ActionState } from "@/lib/next/action-state";
import { field } from "@/lib/next/form";
import { revokeRule } from "@/lib/standing-rules/store";

export async function revokeOwnRuleAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return seatAction(
    { account: field(form, "account"), refusal: "you have no seat in that account", signInReturnTo: "/settings/rules" },
    async ({ human, seat }) => {
      const r = await revokeRule(seat.accountId, field(form, "rule"), { userId: human.userId });
      revalidatePath("/settings/rules");
      return { ok: true, message: `Rule ${r.id} revoked: it answers nothing from now on.` };
    },
  );
}

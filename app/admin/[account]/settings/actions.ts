"use server";
/**
 * The account's settings: whether its agents may list each other's sessions (§16.4). In
 * `adminAction` (same origin, the session's owner/admin seat in the form's account, re-checked on
 * every call); `setAgentSessionVisibility` (lib/principals/accounts.ts) refuses an admin who is not
 * an owner, writes and audits, as `ma2h-hub account set` does.
 */
import { revalidatePath } from "next/cache";
import { adminAction } from "@/lib/next/action";
import type { ActionState } from "@/lib/next/action-state";
import { field } from "@/lib/next/form";
import { setAgentSessionVisibility } from "@/lib/principals/accounts";

export async function setAgentSessionVisibilityAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const choice = field(form, "enabled");
    const enabled = choice === "on" ? true : choice === "off" ? false : choice;
    const r = await setAgentSessionVisibility(seat.slug, enabled, {
      actor: seat.actor,
      accountId: seat.accountId,
      role: seat.role,
    });
    revalidatePath(`/admin/${seat.slug}/settings`);
    const now = r.enabled ? "may list each other's sessions" : "see only their own sessions";
    return {
      ok: true,
      message: r.changed ? `Agents of ${seat.slug} now ${now}.` : `Unchanged: agents already ${now}.`,
    };
  });
}

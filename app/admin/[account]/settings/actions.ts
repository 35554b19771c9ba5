"use server";
/**
 * The account's settings: whether its agents may list each other's sessions (§16.4) and whether they
 * may message each other (§8.0). In `adminAction` (same origin, the session's owner/admin seat in the
 * form's account, re-checked on every call); the setters (lib/principals/accounts.ts) refuse an
 * admin who is not an owner, write and audit, as `ma2h-hub account set` does.
 */
import { revalidatePath } from "next/cache";
import { adminAction } from "@/lib/next/action";
import type { ActionState } from "@/lib/next/action-state";
import { field } from "@/lib/next/form";
import { interAgentSettings } from "@/lib/env";
import { HubError } from "@ma2h/protocol/errors";
import { setAgentSessionVisibility, setInterAgentEnabled } from "@/lib/principals/accounts";

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

/** §8.0: an owner opts the account into the inter-agent leg, or out. */
export async function setInterAgentAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const choice = field(form, "enabled");
    const enabled = choice === "on" ? true : choice === "off" ? false : choice;
    // The page offers no "on" while the Hub's ceiling is off; a crafted post gets the same answer.
    // (The operator's CLI may still record the opt-in ahead of the ceiling.) Turning off is always open.
    if (enabled === true && !interAgentSettings().enabled)
      throw new HubError("not_authorized", "This Hub does not offer inter-agent messages (MA2H_INTER_AGENT is off).");
    const r = await setInterAgentEnabled(seat.slug, enabled, {
      actor: seat.actor,
      accountId: seat.accountId,
      role: seat.role,
    });
    revalidatePath(`/admin/${seat.slug}/settings`);
    const now = r.enabled ? "may message each other" : "may not message each other";
    return {
      ok: true,
      message: r.changed ? `Agents of ${seat.slug} now ${now}.` : `Unchanged: agents already ${now}.`,
    };
  });
}

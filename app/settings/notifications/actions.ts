"use server";
/**
 * A person's own notification preferences, one account at a time: any seat in the account, the
 * person the session's (never the form's). lib/notifications/preferences-store.ts validates,
 * writes and audits; bad input changes nothing and the form shows why.
 */
import { revalidatePath } from "next/cache";
import { seatAction } from "@/lib/next/action";
import type { ActionState } from "@/lib/next/action-state";
import { field, present } from "@/lib/next/form";
import { preferencesFromForm } from "@/lib/notifications/preferences-form";
import { resetPreferences, savePreferences } from "@/lib/notifications/preferences-store";

const PATH = "/settings/notifications";
const gate = (form: FormData) => ({ account: field(form, "account"), refusal: "Not found.", signInReturnTo: PATH });

export async function savePreferencesAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return seatAction(gate(form), async ({ human, seat }) => {
    const input = preferencesFromForm((name) => (present(form, name) ? field(form, name) : null));
    await savePreferences(human.userId, seat, input);
    revalidatePath(PATH);
    return { ok: true, message: `Saved your notification preferences in ${seat.slug}.` };
  });
}

export async function resetPreferencesAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return seatAction(gate(form), async ({ human, seat }) => {
    const r = await resetPreferences(human.userId, seat);
    revalidatePath(PATH);
    return {
      ok: true,
      message: r.reset ? `You follow ${seat.slug}'s defaults again.` : `You already follow ${seat.slug}'s defaults.`,
    };
  });
}

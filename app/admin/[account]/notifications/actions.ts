"use server";
/**
 * The account's notification settings: owners and admins save the defaults of its people's
 * preferences; only owners turn answering from an email without signing in on or off. Each runs in
 * `adminAction` (same origin, the session's owner/admin seat in the form's account, re-checked on
 * every call); lib/notifications/settings-store.ts re-checks the role each change needs,
 * validates, writes and audits.
 */
import { revalidatePath } from "next/cache";
import { adminAction } from "@/lib/next/action";
import type { ActionState } from "@/lib/next/action-state";
import { field, present } from "@/lib/next/form";
import { preferencesFromForm } from "@/lib/notifications/preferences-form";
import {
  saveAccountDefaults,
  setEmailAnswerSensitiveWithoutSignIn,
  setEmailAnswerWithoutSignIn,
} from "@/lib/notifications/settings-store";

export async function saveDefaultsAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    await saveAccountDefaults(
      seat,
      preferencesFromForm((name) => (present(form, name) ? field(form, name) : null)),
    );
    revalidatePath(`/admin/${seat.slug}/notifications`);
    return { ok: true, message: `Saved ${seat.slug}'s notification defaults.` };
  });
}

export async function setEmailAnswerAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const choice = field(form, "enabled");
    const enabled = choice === "on" ? true : choice === "off" ? false : choice;
    const r = await setEmailAnswerWithoutSignIn(seat, enabled);
    revalidatePath(`/admin/${seat.slug}/notifications`);
    const now =
      enabled === true ? "may answer from an email without signing in" : "must sign in to answer from an email";
    return {
      ok: true,
      message: r.changed ? `People in ${seat.slug} now ${now}.` : `Unchanged: people already ${now}.`,
    };
  });
}

/** Owners only (setEmailAnswerSensitiveWithoutSignIn): the link alone for high/urgent and restricted asks too. */
export async function setEmailAnswerSensitiveAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const choice = field(form, "enabled");
    const enabled = choice === "on" ? true : choice === "off" ? false : choice;
    const r = await setEmailAnswerSensitiveWithoutSignIn(seat, enabled);
    revalidatePath(`/admin/${seat.slug}/notifications`);
    const now =
      enabled === true
        ? "may answer high/urgent and restricted asks from an email without signing in"
        : "must sign in to answer high/urgent and restricted asks from an email";
    return {
      ok: true,
      message: r.changed ? `People in ${seat.slug} now ${now}.` : `Unchanged: people already ${now}.`,
    };
  });
}

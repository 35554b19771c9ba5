"use server";
/**
 * The account's reminder and escalation delays: owners/admins only (`adminAction` re-checks
 * the seat on every call); the form's fields are parsed and checked in lib/, which writes and audits.
 */
import { revalidatePath } from "next/cache";
import { overridesFromForm, setReminderOverrides } from "@/lib/notifications/reminders";
import { adminAction } from "@/lib/next/action";
import type { ActionState } from "@/lib/next/action-state";
import { field } from "@/lib/next/form";

export async function setReminderDelaysAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const overrides = overridesFromForm((name) => field(form, name));
    await setReminderOverrides(seat.accountId, overrides, seat.actor);
    revalidatePath(`/admin/${seat.slug}/notifications`);
    return { ok: true, message: "Reminder and escalation delays saved. They apply to items submitted from now on." };
  });
}

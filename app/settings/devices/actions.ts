"use server";
/**
 * A person's own browser push devices: remove one. The person is the session's; someone
 * else's device id is 404 and untouched (lib/notifications/web-push/subscriptions.ts).
 */
import { revalidatePath } from "next/cache";
import { personAction } from "@/lib/next/action";
import type { ActionState } from "@/lib/next/action-state";
import { field } from "@/lib/next/form";
import { removeDevice } from "@/lib/notifications/web-push/subscriptions";

export async function removeDeviceAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return personAction({ signInReturnTo: "/settings/devices" }, async ({ userId }) => {
    const r = await removeDevice(userId, field(form, "device"));
    revalidatePath("/settings/devices");
    return { ok: true, message: `Device ${r.id} removed.` };
  });
}

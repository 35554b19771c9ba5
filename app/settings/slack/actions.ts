"use server";
/**
 * A person's own Slack bindings: remove one. The person is the session's; someone else's
 * binding id (or an unknown one) removes nothing and reads as not found (lib/notifications/slack/bindings.ts).
 */
import { revalidatePath } from "next/cache";
import { clock } from "@/lib/clock";
import { personAction, Refused } from "@/lib/next/action";
import type { ActionState } from "@/lib/next/action-state";
import { field } from "@/lib/next/form";
import { unbindSlackIdentity } from "@/lib/notifications/slack/bindings";

export async function unbindSlackAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return personAction({ signInReturnTo: "/settings/slack" }, async ({ userId }) => {
    const removed = await unbindSlackIdentity(userId, field(form, "binding"), clock.now());
    if (!removed) throw new Refused();
    revalidatePath("/settings/slack");
    return { ok: true, message: `Slack user ${removed.slackUserId} no longer answers as you.` };
  });
}

"use server";
/**
 * The account's Microsoft Teams bot: connect (with the channel asks go to) and disconnect. Owners
 * only — `adminAction` re-checks the seat and lib/notifications/teams/connection.ts re-checks the
 * role, validates, obtains an app token with the secret, seals and audits. The secret is write-only.
 */
import { revalidatePath } from "next/cache";
import { adminAction } from "@/lib/next/action";
import type { ActionState } from "@/lib/next/action-state";
import { field, present } from "@/lib/next/form";
import { connectTeams, disconnectTeams } from "@/lib/notifications/teams/connection";

export async function connectTeamsAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const conn = await connectTeams(seat, {
      appId: field(form, "app_id"),
      tenantId: field(form, "tenant_id"),
      appSecret: field(form, "app_secret"),
      channelId: field(form, "channel_id"),
      serviceUrl: field(form, "service_url"),
      personalMessages: present(form, "personal_messages"),
    });
    revalidatePath(`/admin/${seat.slug}/teams`);
    return { ok: true, message: `Connected Teams bot ${conn.appId}.` };
  });
}

export async function disconnectTeamsAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const r = await disconnectTeams(seat);
    revalidatePath(`/admin/${seat.slug}/teams`);
    return { ok: true, message: r.disconnected ? "Disconnected from Teams." : "Teams was not connected." };
  });
}

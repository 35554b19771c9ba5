"use server";
/**
 * The account's Slack app: connect, choose where items go, disconnect. Owners and admins
 * only — `adminAction` re-checks the seat on every call and lib/slack/connection.ts re-checks the
 * role, validates, verifies the token with Slack, seals and audits. The token and the signing
 * secret are write-only: no action ever returns them.
 */
import { revalidatePath } from "next/cache";
import { adminAction } from "@/lib/next/action";
import type { ActionState } from "@/lib/next/action-state";
import { field, present } from "@/lib/next/form";
import { connectSlack, disconnectSlack, setSlackDestinations } from "@/lib/notifications/slack/connection";

export async function connectSlackAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const conn = await connectSlack(seat, {
      botToken: field(form, "bot_token"),
      signingSecret: field(form, "signing_secret"),
      channelId: field(form, "channel_id"),
      directMessages: present(form, "direct_messages"),
    });
    revalidatePath(`/admin/${seat.slug}/slack`);
    return { ok: true, message: `Connected to Slack workspace ${conn.teamName}.` };
  });
}

export async function setSlackDestinationsAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const r = await setSlackDestinations(seat, {
      channelId: field(form, "channel_id"),
      directMessages: present(form, "direct_messages"),
    });
    revalidatePath(`/admin/${seat.slug}/slack`);
    return { ok: true, message: r.changed.length ? "Saved where items go in Slack." : "Unchanged." };
  });
}

export async function disconnectSlackAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const r = await disconnectSlack(seat);
    revalidatePath(`/admin/${seat.slug}/slack`);
    return { ok: true, message: r.disconnected ? "Disconnected from Slack." : "Slack was not connected." };
  });
}

"use server";
/**
 * Sending a directive from the inbox (§13): same-origin check → the signed-in person → the same
 * `authorDirective` the API uses, pinned to the account whose page the form is on.
 */
import { revalidatePath } from "next/cache";
import { assertSameOrigin } from "@/app/_auth/same-origin";
import { requireHuman } from "@/app/_auth/current-human";
import { seatsOf } from "@/lib/inbox/seats";
import { authorDirective } from "@/lib/mailbox/author";
import { isHubError } from "@/lib/protocol/errors";

export type SendState = { ok: true; id: string; at: number } | { ok: false; error: string } | null;

const HOURS = /^\d{1,4}$/;

export async function sendDirective(_prev: SendState, form: FormData): Promise<SendState> {
  await assertSameOrigin();
  const account = String(form.get("account") ?? "");
  const agent = String(form.get("agent") ?? "");
  const human = await requireHuman("/inbox/directives");
  const seat = (await seatsOf(human.userId)).find((s) => s.slug === account);
  if (!seat) return { ok: false, error: "no such agent" };

  const input: Record<string, unknown> = { to: `agent:${agent}`, title: String(form.get("title") ?? "").trim() };
  const body = String(form.get("body") ?? "").trim();
  if (body) input.body = body;
  const priority = String(form.get("priority") ?? "normal");
  if (priority !== "normal") input.priority = priority;
  const tags = String(form.get("tags") ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  if (tags.length > 0) input.tags = tags;
  const hours = String(form.get("expires_hours") ?? "").trim();
  if (hours) {
    if (!HOURS.test(hours) || Number(hours) < 1) return { ok: false, error: "expiry must be a whole number of hours, at least 1" };
    input.expires_at = new Date(Date.now() + Number(hours) * 3_600_000).toISOString();
  }
  if (form.get("sensitive") === "on") input.sensitive = true;

  try {
    const directive = await authorDirective({ userId: human.userId, accountId: seat.accountId }, input);
    revalidatePath("/inbox/directives");
    return { ok: true, id: directive.id, at: Date.now() };
  } catch (err) {
    if (isHubError(err)) return { ok: false, error: err.message };
    throw err;
  }
}

"use server";
/**
 * Sending a directive from the inbox (§13), in `seatAction`: same-origin check → the signed-in
 * person → their seat in the account whose page the form is on → the same `authorDirective` the
 * API uses, pinned to that account. Without a seat there the answer is the same as for an unknown
 * agent, so the form is no oracle for other accounts.
 */
import { revalidatePath } from "next/cache";
import { authorDirective } from "@/lib/mailbox/author";
import { seatAction } from "@/lib/next/action";
import type { ActionState } from "@/lib/next/action-state";
import { field } from "@/lib/next/form";

type Sent = { id: string; at: number };
export type SendState = ActionState<Sent>;

const HOURS = /^\d{1,4}$/;

export async function sendDirective(_prev: SendState, form: FormData): Promise<SendState> {
  const account = field(form, "account");
  const agent = field(form, "agent");
  return seatAction<Sent>(
    { account, refusal: "no such agent", signInReturnTo: "/inbox/directives" },
    async ({ human, seat }) => {
      // §13.2: a directive may be addressed to one live session of the agent (the composer's
      // session picker); the session is validated by authorDirective (422 / 410).
      const session = field(form, "session").trim();
      const to = session ? `agent:${agent}#${session}` : `agent:${agent}`;
      const input: Record<string, unknown> = { to, title: field(form, "title").trim() };
      const body = field(form, "body").trim();
      if (body) input.body = body;
      const priority = field(form, "priority") || "normal";
      if (priority !== "normal") input.priority = priority;
      const tags = field(form, "tags")
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean);
      if (tags.length > 0) input.tags = tags;
      const hours = field(form, "expires_hours").trim();
      if (hours) {
        if (!HOURS.test(hours) || Number(hours) < 1)
          return { ok: false, error: "expiry must be a whole number of hours, at least 1" };
        input.expires_at = new Date(Date.now() + Number(hours) * 3_600_000).toISOString();
      }
      if (field(form, "sensitive") === "on") input.sensitive = true;

      const directive = await authorDirective({ userId: human.userId, accountId: seat.accountId }, input);
      revalidatePath("/inbox/directives");
      return { ok: true, id: directive.id, at: Date.now() };
    },
  );
}

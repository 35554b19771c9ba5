"use server";
/**
 * A person's own out-of-office delegation, per account (docs/policies.md "Delegation"): set or end
 * it. The person is the session's and the seat theirs in the named account; the change is audited
 * as `human:<handle>` (lib/delegation/store.ts).
 */
import { revalidatePath } from "next/cache";
import { seatAction } from "@/lib/next/action";
import type { ActionState } from "@/lib/next/action-state";
import { field } from "@/lib/next/form";
import { clearDelegation, setDelegation } from "@/lib/delegation/store";
import { HubError } from "@ma2h/protocol/errors";

const PAGE = "/settings/delegation";

/** A `datetime-local` field, read as UTC (the page says so); blank → `fallback`. */
function utcField(form: FormData, name: string, label: string, fallback?: Date): Date {
  const raw = field(form, name).trim();
  if (raw === "" && fallback) return fallback;
  const d = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?$/.test(raw) ? new Date(`${raw}Z`) : new Date(Number.NaN);
  if (Number.isNaN(d.getTime())) throw new HubError("invalid_field", `${label}: a date and time (UTC)`);
  return d;
}

export async function setDelegationAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const account = field(form, "account");
  return seatAction(
    { account, refusal: "you have no seat in that account", signInReturnTo: PAGE },
    async ({ seat }) => {
      const d = await setDelegation({
        accountId: seat.accountId,
        delegator: seat.handle,
        delegate: field(form, "delegate"),
        startsAt: utcField(form, "from", "From", new Date()),
        endsAt: utcField(form, "until", "Until"),
        actor: `human:${seat.handle}`,
      });
      revalidatePath(PAGE);
      return { ok: true, message: `${d.delegate} answers for you in ${seat.slug} until ${d.endsAt.toISOString()}.` };
    },
  );
}

export async function clearDelegationAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const account = field(form, "account");
  return seatAction(
    { account, refusal: "you have no seat in that account", signInReturnTo: PAGE },
    async ({ seat }) => {
      await clearDelegation(seat.accountId, seat.handle, `human:${seat.handle}`);
      revalidatePath(PAGE);
      return { ok: true, message: `Your delegation in ${seat.slug} has ended.` };
    },
  );
}

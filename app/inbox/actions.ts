"use server";
/**
 * The inbox's writes, each in `personAction` (same-origin check → the signed-in person, never
 * anything the browser claims about who they are) → the lib/ verb that the API uses too. The item's
 * account and the person's seat in it are checked by that verb (§9.1), per item.
 */
import { revalidatePath } from "next/cache";
import {
  answerAsHuman,
  answerGroup,
  bulkResolve,
  type BulkReport,
  type GroupReport,
  type HumanAction,
  humanActionFrom,
} from "@/lib/inbox/answer";
import { adminAction, personAction, Refused } from "@/lib/next/action";
import type { ActionResult, ActionState } from "@/lib/next/action-state";
import { field, fieldsAll, present } from "@/lib/next/form";
import { redriveDelivery } from "@/lib/delivery/admin";
import type { ResolutionView } from "@/lib/inbox/view";
import { withdrawVote } from "@/lib/messages/approvals";
import type { PendingApproval } from "@/lib/approvals/pending";
import { reassignMessage } from "@/lib/assignment/reassign";
import { answerAndRemember } from "@/lib/standing-rules/store";
import type { RuleDuration } from "@/lib/policies/model";

/**
 * A resolve that lost the race carries the resolution that won, to show instead; a vote on a quorum
 * ask that does not complete it is `status: "open"` with the count (docs/policies.md "Quorum").
 */
type Resolved = { status: string; approvals?: PendingApproval["approvals"] };
type LostRace = { conflict?: ResolutionView & { status: string } };
export type ResolveResult = ActionResult<Resolved, LostRace>;

/** Resolve one item as the signed-in person (item page, and `a`/`d` on the list). */
export async function resolveItem(id: string, action: HumanAction): Promise<ResolveResult> {
  return personAction<Resolved, LostRace>(
    { signInReturnTo: `/inbox/${encodeURIComponent(id)}` },
    async ({ userId }) => {
      const r = await answerAsHuman(userId, String(id), humanActionFrom(action));
      return r.ok ? r : { ok: false, error: r.message, code: r.code, conflict: r.conflict };
    },
  );
}

/**
 * Withdraw the signed-in person's own approval of an open quorum ask (the item page): `withdrawVote`,
 * audited there. A settled ask answers with its `409` message.
 */
export async function withdrawApproval(id: string): Promise<ActionResult<{ approvals: PendingApproval["approvals"] }>> {
  return personAction<{ approvals: PendingApproval["approvals"] }>(
    { signInReturnTo: `/inbox/${encodeURIComponent(id)}` },
    async ({ userId }) => {
      const r = await withdrawVote(userId, String(id));
      return { ok: true, approvals: r.approvals };
    },
  );
}

/** Bulk decline / complete: `resolveMessage` once per item; skips are reported with the reason. */
export async function resolveMany(
  ids: string[],
  kind: "decline" | "complete",
): Promise<ActionResult<{ report: BulkReport }>> {
  return personAction<{ report: BulkReport }>({ signInReturnTo: "/inbox" }, async ({ userId }) => {
    if (kind !== "decline" && kind !== "complete") throw new Refused("unknown bulk action");
    return { ok: true, report: await bulkResolve(userId, Array.isArray(ids) ? ids.map(String) : [], kind) };
  });
}

/**
 * One decision for a group of similar asks, or for the selected same-shape asks (docs/inbox.md
 * "Similar asks"): `answerGroup`, which answers each ask through the per-ask verb and reports each.
 */
export async function answerSimilar(ids: string[], value: string): Promise<ActionResult<{ report: GroupReport }>> {
  return personAction<{ report: GroupReport }>({ signInReturnTo: "/inbox" }, async ({ userId }) => {
    if (!Array.isArray(ids) || ids.length === 0) throw new Refused("choose the asks to answer");
    if (typeof value !== "string" || value === "") throw new Refused("choose an option");
    return { ok: true, report: await answerGroup(userId, ids.map(String), value) };
  });
}

/** An admin's redrive of one push delivery, from the item page's deliveries panel (`adminAction`: their owner/admin seat in the form's account). */
export async function redriveAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const r = await redriveDelivery(field(form, "delivery"), {
      actor: seat.actor,
      accountId: seat.accountId,
      role: seat.role,
    });
    const message = field(form, "message");
    if (message) revalidatePath(`/inbox/${encodeURIComponent(message)}`);
    return { ok: true, message: `Delivery ${r.id} is pending again: a fresh retry cycle starts now.` };
  });
}

/**
 * Hand an open item to another person or group (the item page; docs/policies.md "Reassignment"):
 * `reassignMessage` checks who may, and whom to, and audits it.
 */
export async function reassignAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const id = field(form, "message");
  return personAction({ signInReturnTo: `/inbox/${encodeURIComponent(id)}` }, async ({ userId }) => {
    const a = await reassignMessage(userId, id, field(form, "to"), field(form, "note"));
    revalidatePath(`/inbox/${encodeURIComponent(id)}`);
    const who = a.handles.map((h) => `human:${h}`).join(", ");
    return { ok: true, message: `Handed to ${a.to}${a.to.startsWith("group:") ? ` (${who})` : ""}.` };
  });
}

/**
 * "Answer and remember" on an item (docs/policies.md "Standing rules"): `answerAndRemember` answers
 * the ask as the signed-in person and saves the rule, every check first.
 */
export async function rememberAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const id = field(form, "message");
  return personAction({ signInReturnTo: `/inbox/${encodeURIComponent(id)}` }, async ({ userId }) => {
    const rule = await answerAndRemember(userId, id, {
      value: field(form, "value"),
      duration: field(form, "duration") as RuleDuration,
      project: present(form, "project"),
      tags: fieldsAll(form, "tag"),
      titlePattern: field(form, "title_pattern"),
      shadow: present(form, "shadow"),
    });
    revalidatePath(`/inbox/${encodeURIComponent(id)}`);
    const until = rule.expiresAt ? `until ${rule.expiresAt.toISOString()}` : "until revoked";
    return {
      ok: true,
      message: `Answered ${rule.scope.value}. Standing rule ${rule.id} ${rule.shadow ? "counts (shadow mode)" : "answers"} ${until}: ${rule.words}.`,
    };
  });
}

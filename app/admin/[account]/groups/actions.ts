"use server";
/**
 * The groups page's writes: create and delete a group, put a person in it or take them out, map an
 * identity provider's groups-claim value to it or drop the mapping. In `adminAction` (same origin,
 * the session's owner/admin seat in the form's account, re-checked on every call) → the verbs of
 * lib/groups/ the CLI calls, with the account as scope (a group is looked up by name within it, so
 * another account's group is "not found") and the seat's role: they refuse an admin who is not an
 * owner, so a forged post from an admin changes nothing either (docs/groups.md).
 */
import { revalidatePath } from "next/cache";
import { addGroupMapping, removeGroupMapping } from "@/lib/groups/claims";
import { addGroupMember, createGroup, deleteGroup, removeGroupMember } from "@/lib/groups/groups";
import { adminAction } from "@/lib/next/action";
import type { ActionState } from "@/lib/next/action-state";
import { field } from "@/lib/next/form";
import type { AdminSeat } from "@/lib/principals/seats";

function opts(seat: AdminSeat) {
  return { actor: seat.actor, accountId: seat.accountId, role: seat.role };
}

function changed(seat: AdminSeat): void {
  revalidatePath(`/admin/${seat.slug}/groups`);
}

export async function createGroupAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const g = await createGroup(seat.accountId, field(form, "name").trim(), field(form, "description"), opts(seat));
    changed(seat);
    return { ok: true, message: `Group group:${g.name} created.` };
  });
}

export async function deleteGroupAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const name = field(form, "group");
    await deleteGroup(seat.accountId, name, opts(seat));
    changed(seat);
    // The group may have sponsored agents: their pages and the agents list change too.
    revalidatePath(`/admin/${seat.slug}/agents`, "layout");
    return { ok: true, message: `Group group:${name} deleted.` };
  });
}

export async function addGroupMemberAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const name = field(form, "group");
    const person = field(form, "person");
    await addGroupMember(seat.accountId, name, person, opts(seat));
    changed(seat);
    return { ok: true, message: `${person} is in group:${name}.` };
  });
}

export async function removeGroupMemberAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const name = field(form, "group");
    const person = field(form, "person");
    await removeGroupMember(seat.accountId, name, person, opts(seat));
    changed(seat);
    return { ok: true, message: `${person} is no longer in group:${name}.` };
  });
}

export async function addGroupMappingAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const name = field(form, "group");
    const value = field(form, "claim_value").trim();
    await addGroupMapping(seat.accountId, name, value, opts(seat));
    changed(seat);
    return {
      ok: true,
      message: `group:${name} is mapped from ${JSON.stringify(value)}: it applies at each person's next sign-in.`,
    };
  });
}

export async function removeGroupMappingAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const name = field(form, "group");
    const value = field(form, "claim_value");
    await removeGroupMapping(seat.accountId, name, value, opts(seat));
    changed(seat);
    return {
      ok: true,
      message: `group:${name} is no longer mapped from ${JSON.stringify(value.trim())}: the people it brought leave at their next sign-in.`,
    };
  });
}

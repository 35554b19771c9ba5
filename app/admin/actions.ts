"use server";
/**
 * The admin screens' writes. Each one runs in `adminAction` (same origin, the session's person,
 * their owner/admin seat in the form's account — re-checked on every call) → the same
 * lib/ verb the CLI calls, with the attested actor `human:<handle>` and the account as scope, so an
 * id of another account is 404 and untouched. Rules (last owner, origin validation, …) live in lib/.
 */
import { revalidatePath } from "next/cache";
import { agentInAccount, createAgent } from "@/lib/principals/agents";
import { revokeKey, rotateKey } from "@/lib/principals/api-keys";
import { addBindingSecret, removeBindingSecret, revokeBinding } from "@/lib/principals/bindings";
import { addBindingWithProof } from "@/lib/delivery/origin-proof";
import { changeStandardWebhooks } from "@/lib/delivery/binding-webhooks";
import { changeRole, removeMember } from "@/lib/principals/members";
import { changeSponsors } from "@/lib/principals/sponsors";
import { addMemberFromBrowser, revokeInvitation } from "@/lib/principals/invitations";
import { HubError } from "@ma2h/protocol/errors";
import { adminAction } from "@/lib/next/action";
import type { ActionResult, ActionState } from "@/lib/next/action-state";
import { field } from "@/lib/next/form";

function opts(seat: { actor: string; accountId: string; role: string }) {
  return { actor: seat.actor, accountId: seat.accountId, role: seat.role };
}

export async function createAgentAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const r = await createAgent(field(form, "agent_id").trim(), seat.slug, opts(seat));
    revalidatePath(`/admin/${seat.slug}/agents`);
    return {
      ok: true,
      message: `Agent ${r.agent.agentId} created with key ${r.key.id}.`,
      secret: r.api_key,
      secretLabel: "API key",
    };
  });
}

export async function rotateKeyAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const agent = await agentInAccount(seat.accountId, field(form, "agent"));
    const r = await rotateKey({ agentId: agent.agentId, accountSlug: seat.slug }, opts(seat));
    revalidatePath(`/admin/${seat.slug}/agents`, "layout");
    return {
      ok: true,
      message: `Key ${r.key.id} added. The older keys keep working until you revoke them.`,
      secret: r.api_key,
      secretLabel: "API key",
    };
  });
}

export async function revokeKeyAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const r = await revokeKey(field(form, "key"), opts(seat));
    revalidatePath(`/admin/${seat.slug}/agents`, "layout");
    return { ok: true, message: `Key ${r.id} revoked.` };
  });
}

/**
 * An agent's sponsors (docs/groups.md): owners add and remove `human:<handle>` / `group:<name>` of
 * the account; `changeSponsors` refuses an admin, and another account's agent, person or group is
 * "not found".
 */
export async function addSponsorAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const sponsor = field(form, "sponsor").trim();
    const after = await changeSponsors(seat.accountId, field(form, "agent"), { add: [sponsor] }, opts(seat));
    revalidatePath(`/admin/${seat.slug}/agents`, "layout");
    return { ok: true, message: `${sponsor} sponsors this agent. Sponsors now: ${after.join(", ")}.` };
  });
}

export async function removeSponsorAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const sponsor = field(form, "sponsor").trim();
    const after = await changeSponsors(seat.accountId, field(form, "agent"), { remove: [sponsor] }, opts(seat));
    revalidatePath(`/admin/${seat.slug}/agents`, "layout");
    return {
      ok: true,
      message: `${sponsor} no longer sponsors this agent. Sponsors now: ${after.length ? after.join(", ") : "none"}.`,
    };
  });
}

export async function addBindingAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const agent = await agentInAccount(seat.accountId, field(form, "agent"));
    const prefix = field(form, "path_prefix").trim();
    const b = await addBindingWithProof(
      {
        agentRef: { agentId: agent.agentId, accountSlug: seat.slug },
        origin: field(form, "origin").trim(),
        pathPrefix: prefix === "" ? undefined : prefix,
        secretRef: field(form, "secret_ref").trim(),
        secret: field(form, "secret"),
      },
      opts(seat),
    );
    revalidatePath(`/admin/${seat.slug}/bindings`);
    return {
      ok: true,
      message: `Binding ${b.id} approved: ${b.origin}${b.pathPrefix === "/" ? "" : b.pathPrefix} for ${b.agentId}.`,
    };
  });
}

export async function addBindingSecretAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const r = await addBindingSecret(
      field(form, "binding"),
      field(form, "secret_ref").trim(),
      field(form, "secret"),
      opts(seat),
    );
    revalidatePath(`/admin/${seat.slug}/bindings`);
    return { ok: true, message: `Secret ${r.ref} added to ${r.bindingId}.` };
  });
}

export async function removeBindingSecretAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const r = await removeBindingSecret(field(form, "binding"), field(form, "secret_ref"), opts(seat));
    revalidatePath(`/admin/${seat.slug}/bindings`);
    return { ok: true, message: `Secret ${r.ref} removed from ${r.bindingId}.` };
  });
}

export async function revokeBindingAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const r = await revokeBinding(field(form, "binding"), opts(seat));
    revalidatePath(`/admin/${seat.slug}/bindings`);
    return { ok: true, message: `Binding ${r.id} revoked.` };
  });
}

/**
 * Always an invitation, accepted in the person's own inbox — a person new to the Hub signs in to
 * accept it (lib/principals/invitations.ts); never a seat they did not take.
 */
export async function addMemberAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const r = await addMemberFromBrowser(
      field(form, "email"),
      seat.slug,
      field(form, "handle").trim(),
      field(form, "role"),
      opts(seat),
    );
    revalidatePath(`/admin/${seat.slug}/members`);
    const i = r.invitation;
    return {
      ok: true,
      message: `${i.email} invited as ${i.handle} (${i.role}). No email is sent: ask them to sign in to this Hub and accept it in their inbox; the seat is theirs only then.`,
    };
  });
}

export async function revokeInvitationAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const r = await revokeInvitation(seat.accountId, field(form, "invitation"), opts(seat));
    revalidatePath(`/admin/${seat.slug}/members`);
    return { ok: true, message: `The invitation of ${r.handle} is revoked.` };
  });
}

export async function changeRoleAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const r = await changeRole(seat.accountId, field(form, "member"), field(form, "role"), opts(seat));
    revalidatePath(`/admin/${seat.slug}/members`);
    return { ok: true, message: r.changed ? `${r.handle} is now ${r.role}.` : `${r.handle} already is ${r.role}.` };
  });
}

export async function removeMemberAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }) => {
    const r = await removeMember(seat.accountId, field(form, "member"), opts(seat));
    revalidatePath(`/admin/${seat.slug}/members`);
    // Whether it was the person's last seat (and what else ended) is not this account's to know.
    return { ok: true, message: `${r.handle} removed: their access to ${seat.slug} has ended.` };
  });
}

/** Standard Webhooks on a binding: on / rotate show the new `whsec_` secret once; off removes it. */
export async function bindingWebhooksAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return adminAction(field(form, "account"), async ({ seat }): Promise<ActionResult> => {
    const change = field(form, "change");
    if (change !== "on" && change !== "rotate" && change !== "off")
      throw new HubError("invalid_field", "change must be on, rotate or off");
    const r = await changeStandardWebhooks(field(form, "binding"), change, opts(seat));
    revalidatePath(`/admin/${seat.slug}/bindings`);
    if (!r.secret) return { ok: true, message: `Standard Webhooks off for ${r.bindingId}.` };
    return {
      ok: true,
      message: `Standard Webhooks ${change === "on" ? "on" : "secret rotated"} for ${r.bindingId}.`,
      secret: r.secret,
      secretLabel: "Standard Webhooks secret",
    };
  });
}

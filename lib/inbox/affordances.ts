/**
 * What a person may do with one message in the inbox: the §9.1 resolver rules (the same function
 * `resolveMessage` enforces) and the §5.2 permissions (the same rules `checkResolution` enforces).
 * The inbox uses this only to choose which controls to show and what bulk actions skip; the verb
 * re-checks everything on write.
 */
import type { Routing } from "../policies/evaluate";
import { humanResolveRefusal } from "../messages/access";
import type { Message } from "@ma2h/protocol/message";
import type { Seat } from "../principals/types";

export interface Affordances {
  /** Why this person may not resolve it at all (role, allowed_resolvers, state), or null. */
  refusal: string | null;
  /** Ask: answer (allow_respond); decline (allow_ignore). Task: complete / dismiss. */
  answer: boolean;
  decline: boolean;
  complete: boolean;
  dismiss: boolean;
}

const NONE = { answer: false, decline: false, complete: false, dismiss: false };

export function affordancesFor(seat: Seat, envelope: Message, status: string, routing: Routing | null): Affordances {
  if (envelope.type === "notify") return { refusal: "a notify has nothing to resolve", ...NONE };
  if (status !== "open") return { refusal: `already ${status}`, ...NONE };
  const refusal = humanResolveRefusal(seat, envelope, routing);
  if (refusal !== null) return { refusal, ...NONE };
  if (envelope.type === "task") return { refusal: null, answer: false, decline: false, complete: true, dismiss: true };
  const p = envelope.request.permissions;
  // §5.2: allow_respond:false leaves only decline; allow_ignore:false removes decline.
  return {
    refusal: null,
    answer: p?.allow_respond !== false,
    decline: p?.allow_ignore !== false,
    complete: false,
    dismiss: false,
  };
}

/** Why a bulk decline (ask → declined, task → dismissed) skips this item, or null. */
export function declineRefusal(a: Affordances, type: Message["type"]): string | null {
  if (a.refusal !== null) return a.refusal;
  if (type === "ask" && !a.decline) return "this ask cannot be declined (permissions.allow_ignore is false)";
  return null;
}

/** Why a bulk complete skips this item, or null. */
export function completeRefusal(a: Affordances, type: Message["type"]): string | null {
  if (a.refusal !== null) return a.refusal;
  if (type !== "task") return "complete applies to tasks only";
  return null;
}

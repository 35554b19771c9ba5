/**
 * The one wrapper every server action runs in: same-origin proof → the session's person (never
 * anything the form says about who they are) → their seat in the form's account when the action is
 * account-scoped → the action's body → a refusal or a lib/ rule violation (a HubError) turned into
 * the form's `{ ok: false, error }`. Checked on the server for every call, so a replayed or forged
 * action by someone without the seat is refused.
 */
import { redirect } from "next/navigation";
import { log } from "../log";
import { isHubError } from "@ma2h/protocol/errors";
import { adminSeat, seatBySlug, type AccountSeat, type AdminSeat } from "../principals/seats";
import type { SessionHuman } from "../principals/web-sessions";
import type { ActionResult } from "./action-state";
import { currentHuman } from "./current-human";
import { sentFromOurPages } from "./same-origin";

/** Thrown when the caller may not take the action; the form shows a bare refusal. */
export class Refused extends Error {
  constructor(message = "Not found.") {
    super(message);
    this.name = "Refused";
  }
}

interface Gate {
  /** Where a person whose session ended signs in again; without it they get a bare refusal. */
  signInReturnTo?: string;
}

/** A person-scoped action (their own tokens, their inbox items): no seat check here. */
export function personAction<Done extends object, Refusal extends object = object>(
  gate: Gate,
  body: (human: SessionHuman) => Promise<ActionResult<Done, Refusal>>,
): Promise<ActionResult<Done, Refusal>> {
  return run(() => gated(gate).then(body));
}

/** An action in one account that needs an owner or admin seat there (the admin screens). */
export function adminAction<Done extends object, Refusal extends object = object>(
  account: string,
  body: (ctx: { human: SessionHuman; seat: AdminSeat }) => Promise<ActionResult<Done, Refusal>>,
): Promise<ActionResult<Done, Refusal>> {
  return run(async () => {
    const human = await gated({});
    const seat = await adminSeat(human.userId, account);
    if (!seat) throw new Refused();
    return body({ human, seat });
  });
}

/** An action in one account that needs any seat there; `refusal` is what a person without one reads. */
export function seatAction<Done extends object>(
  gate: Gate & { account: string; refusal: string },
  body: (ctx: { human: SessionHuman; seat: AccountSeat }) => Promise<ActionResult<Done>>,
): Promise<ActionResult<Done>> {
  return run(async () => {
    const human = await gated(gate);
    const seat = await seatBySlug(human.userId, gate.account);
    if (!seat) throw new Refused(gate.refusal);
    return body({ human, seat });
  });
}

async function gated(gate: Gate): Promise<SessionHuman> {
  if (!(await sentFromOurPages())) throw new Refused("cross-site request refused");
  const human = await currentHuman();
  if (human) return human;
  if (gate.signInReturnTo) redirect(`/signin?callbackUrl=${encodeURIComponent(gate.signInReturnTo)}`);
  throw new Refused();
}

async function run<S extends ActionResult<object, object>>(fn: () => Promise<S>): Promise<S> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof Refused) return { ok: false, error: err.message } as S;
    // lib/ rules speak in HubErrors whose messages name the field and the rule, never a secret.
    if (isHubError(err)) return { ok: false, error: err.message, code: err.code } as S;
    // Next's redirect()/notFound() are control flow, not failures.
    if (err && typeof err === "object" && "digest" in err) throw err;
    log.error("server action failed", { error: err as Error });
    return { ok: false, error: "The change failed (see the Hub log)." } as S;
  }
}

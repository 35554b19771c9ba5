import { notFound } from "next/navigation";
import { assertSameOrigin } from "@/app/_auth/same-origin";
import { currentHuman, requireHuman } from "@/app/_auth/current-human";
import { adminSeat, type AdminSeat } from "@/lib/principals/members";
import type { SessionHuman } from "@/lib/principals/web-sessions";

/**
 * The admin pages' gate (issue #6 item 7): signed in (else to /signin), and an owner or admin of
 * the account in the URL — anyone else, another account's admin included, gets the same 404 as an
 * account that does not exist. Every page calls it (layouts do not re-run on navigation).
 */
export async function adminPage(slug: string, path: string): Promise<{ human: SessionHuman; seat: AdminSeat }> {
  const human = await requireHuman(path);
  const seat = await adminSeat(human.userId, String(slug));
  if (!seat) notFound();
  return { human, seat };
}

/** Thrown by an admin action the caller may not take; the form shows a bare refusal. */
export class Refused extends Error {
  constructor() {
    super("Not found.");
    this.name = "Refused";
  }
}

/**
 * The admin actions' gate: same-origin proof, the session's person (never the form's say), and
 * their owner/admin seat in the account the form names — checked on the server for every call, so
 * a replayed or forged action by a member, a viewer or another account's admin is refused.
 */
export async function adminAction(slug: unknown): Promise<{ human: SessionHuman; seat: AdminSeat }> {
  await assertSameOrigin();
  const human = await currentHuman();
  if (!human) throw new Refused();
  const seat = await adminSeat(human.userId, String(slug ?? ""));
  if (!seat) throw new Refused();
  return { human, seat };
}

import { notFound } from "next/navigation";
import { adminSeat, type AdminSeat } from "../principals/seats";
import type { SessionHuman } from "../principals/web-sessions";
import { requireHuman } from "./current-human";

/**
 * The admin pages' gate: signed in (else to /signin), and an owner or admin of the account in the
 * URL — anyone else, another account's admin included, gets the same 404 as an account that does
 * not exist. Every page calls it (layouts do not re-run on navigation).
 */
export async function adminPage(slug: string, path: string): Promise<{ human: SessionHuman; seat: AdminSeat }> {
  const human = await requireHuman(path);
  const seat = await adminSeat(human.userId, String(slug));
  if (!seat) notFound();
  return { human, seat };
}

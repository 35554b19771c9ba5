/** The accounts a person has a seat in: the whole of what the inbox may show them (§9.1). */
import { db } from "../db";
import { ROLES, type Role } from "../principals/types";

export interface InboxSeat {
  accountId: string;
  slug: string;
  handle: string;
  role: Role;
}

export async function seatsOf(userId: string): Promise<InboxSeat[]> {
  const rows = await db().membership.findMany({
    where: { userId },
    select: { accountId: true, handle: true, role: true, account: { select: { slug: true } } },
  });
  return rows
    .filter((r) => (ROLES as readonly string[]).includes(r.role))
    .map((r) => ({ accountId: r.accountId, slug: r.account.slug, handle: r.handle, role: r.role as Role }))
    .sort((a, b) => a.slug.localeCompare(b.slug));
}

/**
 * Who is told of a new item (#16, docs/notifications.md): exactly the humans who may resolve it —
 * the same §9.1 rule the inbox and `resolveMessage` apply (`humanResolveRefusal`): the humans
 * `allowed_resolvers` names, or, when it is absent, every owner, admin and member of the item's
 * account. A viewer never is; agents are not mailed.
 */
import { db } from "../db";
import { humanResolveRefusal } from "../messages/access";
import type { envelopeOf } from "../messages/record";
import { RESOLVING_ROLES, type Role } from "../principals/types";

export interface Recipient {
  userId: string;
  handle: string;
}

export async function resolvingHumans(
  accountId: string,
  envelope: ReturnType<typeof envelopeOf>,
): Promise<Recipient[]> {
  const members = await db().membership.findMany({
    where: { accountId, role: { in: [...RESOLVING_ROLES] } },
    select: { userId: true, handle: true, role: true },
    orderBy: { handle: "asc" },
  });
  return members
    .filter((m) => humanResolveRefusal({ accountId, handle: m.handle, role: m.role as Role }, envelope) === null)
    .map((m) => ({ userId: m.userId, handle: m.handle }));
}

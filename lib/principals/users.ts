/**
 * Users and their per-account seats: a person (by email) may hold a membership
 * in several accounts, each with a role and an account-unique handle — the attested actor
 * `human:<handle>` (§9.1).
 */
import { db } from "../db";
import { HubError } from "@ma2h/protocol/errors";
import { mintId } from "@ma2h/protocol/ids";
import { findAccount } from "./accounts";
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit } from "../audit/write";
import { isUniqueViolation } from "../db-errors";
import { publishSeatChange } from "../pubsub/seats";
import { actorOf, requireOwnerFor, type AdminOptions } from "./admin-scope";
import { requireMatch } from "./field-format";
import { ROLES, type Role } from "./types";

export const HANDLE_PATTERN = /^[a-z0-9._-]{1,64}$/;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;

export interface AddedUser {
  userId: string;
  membershipId: string;
  email: string;
  handle: string;
  role: Role;
  accountSlug: string;
}

/** Emails are compared case-insensitively: stored trimmed and lower-cased. */
export function normaliseEmail(email: string): string {
  const e = email.trim().toLowerCase();
  return requireMatch("email", e, EMAIL_PATTERN, "expected an address like name@example.com");
}

export function parseRole(role: string): Role {
  if (!(ROLES as readonly string[]).includes(role)) {
    throw new HubError("invalid_field", `role ${JSON.stringify(role)} is invalid: use one of ${ROLES.join(", ")}`);
  }
  return role as Role;
}

/**
 * Adds `email` to an account with a handle and role at once, creating the user on first sight: the
 * CLI's add (the operator of the whole Hub), and the web admin's for a person with no seat anywhere
 * yet. The web admin invites a person who already sits elsewhere instead (invitations.ts).
 */
export async function addUser(
  email: string,
  accountSlug: string,
  handle: string,
  role: string,
  opts?: AdminOptions,
): Promise<AddedUser> {
  const normalised = normaliseEmail(email);
  requireMatch("handle", handle, HANDLE_PATTERN, "use 1-64 characters of [a-z0-9._-]");
  const seatRole = parseRole(role);
  if (seatRole === "owner") requireOwnerFor(opts, "add an owner");
  const account = await findAccount(accountSlug);
  for (let attempt = 1; ; attempt++) {
    try {
      return await insertSeat(account.id, accountSlug, normalised, handle, seatRole, actorOf(opts));
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const conflict = await seatConflict(account.id, accountSlug, normalised, handle);
      // No lasting conflict: a concurrent first add of the same person won the user row; go again.
      if (conflict || attempt >= 2)
        throw new HubError("invalid_field", conflict ?? `could not add ${normalised}; retry`);
    }
  }
}

function insertSeat(accountId: string, accountSlug: string, email: string, handle: string, role: Role, actor: string) {
  return db().$transaction(async (tx): Promise<AddedUser> => {
    const user = await tx.user.upsert({
      where: { email },
      create: { id: mintId("user"), email },
      update: {},
      select: { id: true },
    });
    const membership = await tx.membership.create({
      data: { id: mintId("membership"), accountId, userId: user.id, handle, role },
      select: { id: true },
    });
    await writeAudit(tx, {
      accountId,
      actor,
      event: AUDIT_EVENT.memberAdded,
      detail: { user_id: user.id, membership_id: membership.id, handle, role },
    });
    await publishSeatChange(tx, user.id);
    return { userId: user.id, membershipId: membership.id, email, handle, role, accountSlug };
  });
}

async function seatConflict(accountId: string, accountSlug: string, email: string, handle: string) {
  const byHandle = await db().membership.findUnique({ where: { accountId_handle: { accountId, handle } } });
  if (byHandle) return `handle ${handle} is already taken in account ${accountSlug}`;
  const member = await db().membership.findFirst({ where: { accountId, user: { email } }, select: { id: true } });
  if (member) return `${email} is already a member of account ${accountSlug}`;
  return null;
}

/** The user with `email`, or `404 not_found`. */
export async function findUserByEmail(email: string): Promise<{ id: string; email: string }> {
  const normalised = normaliseEmail(email);
  const user = await db().user.findUnique({ where: { email: normalised }, select: { id: true, email: true } });
  if (!user) throw new HubError("not_found", `user ${normalised} not found`);
  return user;
}

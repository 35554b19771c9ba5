/**
 * Invitations (docs/admin.md "Invitations"): a seat offered by an account's owner or admin in
 * the browser to a person who already sits in another account. A person belongs to no account
 * alone, so one account's admin may not put another account's member anywhere: the invitation
 * grants nothing — no membership row, hence no inbox item, resolver right, notification or live
 * update — until the person accepts it in their own inbox, which creates the membership with the
 * invited handle and role. A brand-new address (no person yet, or one whose last seat is gone) is
 * invited too — never seated silently: its person is made without a seat, may sign in while the
 * invitation is live (lib/web-auth/sign-in.ts) and sees only the invitation until accepting it. A
 * mistyped or stale address thus receives nothing of the account. The CLI, run by the operator of
 * the whole Hub, always adds directly (`addUser`, users.ts).
 *
 * Every change of an invitation is audited in its account (created, accepted, declined, revoked);
 * all of them run under the account lock (seat-locks.ts), as seat changes do.
 */
import { clock } from "../clock";
import { db, type Tx } from "../db";
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit } from "../audit/write";
import { isUniqueViolation } from "../db-errors";
import { HubError } from "@ma2h/protocol/errors";
import { mintId } from "@ma2h/protocol/ids";
import { publishSeatChange } from "../pubsub/seats";
import { lockAccount, lockPerson } from "./seat-locks";
import { findAccount } from "./accounts";
import { actorOf, requireOwnerFor, type AdminOptions } from "./admin-scope";
import { requireMatch } from "./field-format";
import { ROLES, type Role } from "./types";
import { HANDLE_PATTERN, normaliseEmail, parseRole } from "./users";

/** How long an invitation can be accepted (docs/decisions/auth-and-security.md, "Hardening: invitations and seat removal"). */
export const INVITATION_TTL_MS = 14 * 24 * 3600 * 1000;

/** The actor of a revocation the Hub makes itself, when the invited person's last seat is removed. */
const HUB_ACTOR = "system:hub";

export interface InvitationInfo {
  id: string;
  userId: string;
  email: string;
  handle: string;
  role: Role;
  invitedBy: string;
  createdAt: Date;
  expiresAt: Date;
  /** Past `expiresAt`: it can no longer be accepted; an admin revokes it and may invite again. */
  expired: boolean;
}

/** What the invited person sees in their inbox. */
export interface PendingInvitation {
  id: string;
  accountSlug: string;
  handle: string;
  role: Role;
  invitedBy: string;
  expiresAt: Date;
}

/** What adding a member from the browser did: always an invitation to accept (never a seat). */
export type BrowserAdd = {
  kind: "invited";
  invitation: { id: string; email: string; handle: string; role: Role; expiresAt: Date };
};

const asRole = (role: string): Role => ((ROLES as readonly string[]).includes(role) ? (role as Role) : "viewer");

/**
 * The web admin's "add a member": always an invitation the person accepts or declines — whether
 * they hold a seat elsewhere, once held one, or are new to the Hub (their person row is made in the
 * invitation's transaction, with no seat). An existing member of the account is refused.
 */
export async function addMemberFromBrowser(
  email: string,
  accountSlug: string,
  handle: string,
  role: string,
  opts: AdminOptions,
): Promise<BrowserAdd> {
  const normalised = normaliseEmail(email);
  requireMatch("handle", handle, HANDLE_PATTERN, "use 1-64 characters of [a-z0-9._-]");
  const seatRole = parseRole(role);
  if (seatRole === "owner") requireOwnerFor(opts, "add an owner");
  const account = await findAccount(accountSlug);
  for (let attempt = 1; ; attempt++) {
    try {
      const invitation = await createInvitation(account.id, accountSlug, normalised, handle, seatRole, opts);
      return { kind: "invited", invitation: { ...invitation, email: normalised, handle, role: seatRole } };
    } catch (err) {
      // A concurrent first add of the same address made its person row first: go again once.
      if (!isUniqueViolation(err) || attempt >= 2) throw err;
    }
  }
}

/** Whether a pending invitation can still be accepted at `now`. */
const live = (now: Date) => ({ status: "pending", expiresAt: { gt: now } });

/** Refuses a handle held by a member, or by a live invitation, of the account. */
async function requireFreeHandle(tx: Tx, accountId: string, accountSlug: string, handle: string, now: Date) {
  const member = await tx.membership.findUnique({ where: { accountId_handle: { accountId, handle } } });
  const invited = await tx.invitation.findFirst({ where: { accountId, handle, ...live(now) }, select: { id: true } });
  if (member || invited)
    throw new HubError("invalid_field", `handle ${handle} is already taken in account ${accountSlug}`);
}

async function createInvitation(
  accountId: string,
  accountSlug: string,
  email: string,
  handle: string,
  role: Role,
  opts: AdminOptions,
): Promise<{ id: string; expiresAt: Date }> {
  return db().$transaction(async (tx) => {
    await lockAccount(tx, accountId);
    const now = clock.now();
    // The person, made here with no seat when the address is new to the Hub.
    const { id: userId } = await tx.user.upsert({
      where: { email },
      create: { id: mintId("user"), email },
      update: {},
      select: { id: true },
    });
    if (await tx.membership.findUnique({ where: { accountId_userId: { accountId, userId } } }))
      throw new HubError("invalid_field", `this person is already a member of account ${accountSlug}`);
    if (await tx.invitation.findFirst({ where: { accountId, userId, ...live(now) }, select: { id: true } }))
      throw new HubError("invalid_field", `this person is already invited to account ${accountSlug}`);
    await requireFreeHandle(tx, accountId, accountSlug, handle, now);
    const id = mintId("invitation");
    const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS);
    const invitedBy = actorOf(opts);
    await tx.invitation.create({
      data: { id, accountId, userId, handle, role, invitedBy, status: "pending", createdAt: now, expiresAt },
    });
    await writeAudit(tx, {
      accountId,
      actor: invitedBy,
      event: AUDIT_EVENT.invitationCreated,
      detail: { invitation_id: id, user_id: userId, handle, role, expires_at: expiresAt.toISOString() },
      at: now,
    });
    return { id, expiresAt };
  });
}

/** The account's pending invitations (expired ones flagged), by handle. */
export async function listInvitations(accountId: string): Promise<InvitationInfo[]> {
  const now = clock.now();
  const rows = await db().invitation.findMany({
    where: { accountId, status: "pending" },
    select: {
      id: true,
      userId: true,
      handle: true,
      role: true,
      invitedBy: true,
      createdAt: true,
      expiresAt: true,
      user: { select: { email: true } },
    },
    orderBy: [{ handle: "asc" }, { createdAt: "asc" }],
  });
  return rows.map((r) => ({
    id: r.id,
    userId: r.userId,
    email: r.user.email,
    handle: r.handle,
    role: asRole(r.role),
    invitedBy: r.invitedBy,
    createdAt: r.createdAt,
    expiresAt: r.expiresAt,
    expired: r.expiresAt.getTime() <= now.getTime(),
  }));
}

/**
 * An owner or admin withdraws a pending invitation (expired or not). Another account's invitation,
 * or one already answered, is `404`, indistinguishable from an unknown id (§9.1).
 */
export async function revokeInvitation(
  accountId: string,
  invitationId: string,
  opts: AdminOptions,
): Promise<{ id: string; handle: string }> {
  return db().$transaction(async (tx) => {
    await lockAccount(tx, accountId);
    const inv = await tx.invitation.findFirst({
      where: { id: invitationId, accountId, status: "pending" },
      select: { id: true, userId: true, handle: true },
    });
    if (!inv) throw new HubError("not_found", `invitation ${invitationId} not found`);
    const now = clock.now();
    await tx.invitation.update({ where: { id: inv.id }, data: { status: "revoked", respondedAt: now } });
    await writeAudit(tx, {
      accountId,
      actor: actorOf(opts),
      event: AUDIT_EVENT.invitationRevoked,
      detail: { invitation_id: inv.id, user_id: inv.userId, handle: inv.handle },
      at: now,
    });
    return { id: inv.id, handle: inv.handle };
  });
}

/** Whether the person has an invitation they can still accept (it lets them sign in to answer it). */
export async function hasLiveInvitation(userId: string): Promise<boolean> {
  return (await db().invitation.count({ where: { userId, ...live(clock.now()) } })) > 0;
}

/** The person's invitations they can still accept, oldest first (their inbox shows them). */
export async function pendingInvitationsFor(userId: string): Promise<PendingInvitation[]> {
  const rows = await db().invitation.findMany({
    where: { userId, ...live(clock.now()) },
    select: {
      id: true,
      handle: true,
      role: true,
      invitedBy: true,
      expiresAt: true,
      account: { select: { slug: true } },
    },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return rows.map((r) => ({
    id: r.id,
    accountSlug: r.account.slug,
    handle: r.handle,
    role: asRole(r.role),
    invitedBy: r.invitedBy,
    expiresAt: r.expiresAt,
  }));
}

/**
 * Loads the person's own live invitation under its account's lock and the person's (so a concurrent
 * removal of their last seat, which revokes it, comes first or waits). Someone else's, an unknown,
 * an answered or an expired one is `404`, alike.
 */
async function lockedOwnInvitation(tx: Tx, userId: string, invitationId: string) {
  const found = await tx.invitation.findFirst({ where: { id: invitationId, userId }, select: { accountId: true } });
  if (found) {
    await lockAccount(tx, found.accountId);
    await lockPerson(tx, userId);
  }
  const now = clock.now();
  const inv = found
    ? await tx.invitation.findFirst({
        where: { id: invitationId, userId, ...live(now) },
        select: { id: true, accountId: true, handle: true, role: true, account: { select: { slug: true } } },
      })
    : null;
  if (!inv) throw new HubError("not_found", `invitation ${invitationId} not found`);
  return { inv, now };
}

/**
 * The invited person accepts: in one transaction the membership is created with the invited handle
 * and role, the invitation marked accepted and audited, and the person's live streams told. If the
 * handle was taken meanwhile (or the person was given a seat there directly) nothing changes and the
 * refusal says so; the invitation stays pending for the account to revoke.
 */
export async function acceptInvitation(
  userId: string,
  invitationId: string,
): Promise<{ accountSlug: string; handle: string; role: Role; membershipId: string }> {
  try {
    return await db().$transaction(async (tx) => {
      const { inv, now } = await lockedOwnInvitation(tx, userId, invitationId);
      const slug = inv.account.slug;
      if (await tx.membership.findUnique({ where: { accountId_userId: { accountId: inv.accountId, userId } } }))
        throw new HubError("invalid_field", `you already have a seat in account ${slug}`);
      if (
        await tx.membership.findUnique({
          where: { accountId_handle: { accountId: inv.accountId, handle: inv.handle } },
        })
      )
        throw handleTaken(inv.handle, slug);
      const role = asRole(inv.role);
      const membershipId = mintId("membership");
      await tx.membership.create({
        data: { id: membershipId, accountId: inv.accountId, userId, handle: inv.handle, role, createdAt: now },
      });
      await tx.invitation.update({ where: { id: inv.id }, data: { status: "accepted", respondedAt: now } });
      await writeAudit(tx, {
        accountId: inv.accountId,
        actor: `human:${inv.handle}`,
        event: AUDIT_EVENT.invitationAccepted,
        detail: { invitation_id: inv.id, membership_id: membershipId, user_id: userId, handle: inv.handle, role },
        at: now,
      });
      await publishSeatChange(tx, userId);
      return { accountSlug: slug, handle: inv.handle, role, membershipId };
    });
  } catch (err) {
    // A seat created without the account lock (the CLI's direct add) can still win the handle.
    if (isUniqueViolation(err))
      throw new HubError("invalid_field", "that handle or seat was taken meanwhile; ask for a new invitation");
    throw err;
  }
}

function handleTaken(handle: string, slug: string): HubError {
  return new HubError(
    "invalid_field",
    `handle ${handle} was taken in account ${slug} since you were invited; ask its admins for a new invitation`,
  );
}

/** The invited person declines; the account sees it in its audit log. */
export async function declineInvitation(userId: string, invitationId: string): Promise<{ accountSlug: string }> {
  return db().$transaction(async (tx) => {
    const { inv, now } = await lockedOwnInvitation(tx, userId, invitationId);
    await tx.invitation.update({ where: { id: inv.id }, data: { status: "declined", respondedAt: now } });
    await writeAudit(tx, {
      accountId: inv.accountId,
      actor: `human:${inv.handle}`,
      event: AUDIT_EVENT.invitationDeclined,
      detail: { invitation_id: inv.id, user_id: userId, handle: inv.handle },
      at: now,
    });
    return { accountSlug: inv.account.slug };
  });
}

/**
 * Revokes every pending invitation of a person whose last seat was just removed (members.ts), in
 * that removal's transaction: they can no longer sign in to answer, and the address starts clean.
 * Each inviting account records the revocation by the Hub itself.
 */
export async function revokeInvitationsOf(tx: Tx, userId: string): Promise<number> {
  const rows = await tx.invitation.findMany({
    where: { userId, status: "pending" },
    select: { id: true, accountId: true, handle: true },
  });
  if (rows.length === 0) return 0;
  const now = clock.now();
  await tx.invitation.updateMany({
    where: { id: { in: rows.map((r) => r.id) } },
    data: { status: "revoked", respondedAt: now },
  });
  await writeAudit(
    tx,
    rows.map((r) => ({
      accountId: r.accountId,
      actor: HUB_ACTOR,
      event: AUDIT_EVENT.invitationRevoked,
      detail: { invitation_id: r.id, user_id: userId, handle: r.handle },
      at: now,
    })),
  );
  return rows.length;
}

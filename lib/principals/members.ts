/**
 * Account membership administration: the member list, role changes and removal. Who administers
 * an account is a seat lookup (seats.ts); adding a member is `addUser` (users.ts), or from the
 * browser an invitation for a person seated elsewhere (invitations.ts). The rule that an account
 * always keeps at least one owner is enforced here, under a lock on the account row, so two
 * concurrent demotions or removals cannot both pass it — never in a page.
 */
import { db, type Tx } from "../db";
import { HubError } from "@ma2h/protocol/errors";
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit, writePersonAudit } from "../audit/write";
import { actorOf, requireOwnerFor, type AdminOptions } from "./admin-scope";
import { parseRole } from "./users";
import { publishSeatChange } from "../pubsub/seats";
import { lockAccount, lockPerson } from "./seat-locks";
import { revokeInvitationsOf } from "./invitations";
import { revokeTokensOf } from "./tokens";
import { announceCredentialChange, credentialTransaction } from "./credential-cache";
import { unbindIdentitiesOf } from "./identities";
import { endSessionsOf } from "./web-sessions";
import { ROLES, type Role } from "./types";

export interface MemberInfo {
  membershipId: string;
  userId: string;
  email: string;
  name: string | null;
  handle: string;
  role: Role;
  createdAt: Date;
}

/** The account's members by handle. */
export async function listMembers(accountId: string): Promise<MemberInfo[]> {
  const rows = await db().membership.findMany({
    where: { accountId },
    select: {
      id: true,
      userId: true,
      handle: true,
      role: true,
      createdAt: true,
      user: { select: { email: true, name: true } },
    },
    orderBy: [{ handle: "asc" }],
  });
  return rows
    .filter((r) => (ROLES as readonly string[]).includes(r.role))
    .map((r) => ({
      membershipId: r.id,
      userId: r.userId,
      email: r.user.email,
      name: r.user.name,
      handle: r.handle,
      role: r.role as Role,
      createdAt: r.createdAt,
    }));
}

/**
 * Locks the account row (serialising every membership change of the account for the transaction)
 * and loads the membership, which must belong to `accountId` — another account's is `404`.
 */
async function lockedMembership(tx: Tx, accountId: string, membershipId: string) {
  await lockAccount(tx, accountId);
  const m = await tx.membership.findFirst({
    where: { id: membershipId, accountId },
    select: { id: true, userId: true, handle: true, role: true },
  });
  if (!m) throw new HubError("not_found", `member ${membershipId} not found`);
  return m;
}

/** Refuses a change that would leave the account without an owner. */
async function keepAnOwner(
  tx: Tx,
  accountId: string,
  leaving: { id: string; role: string },
  what: string,
): Promise<void> {
  if (leaving.role !== "owner") return;
  const others = await tx.membership.count({ where: { accountId, role: "owner", id: { not: leaving.id } } });
  if (others === 0)
    throw new HubError(
      "invalid_field",
      `${what} would leave the account without an owner; make someone else owner first`,
    );
}

/**
 * Changes a member's role. Setting the role it already has is a no-op (no audit row). Roles are
 * read per request (seats.ts), and the person's cached PAT authentications are dropped everywhere
 * too (credential-cache.ts), so no process acts on the old role past the commit.
 */
export async function changeRole(
  accountId: string,
  membershipId: string,
  role: string,
  opts?: AdminOptions,
): Promise<{ membershipId: string; handle: string; role: Role; changed: boolean }> {
  const next = parseRole(role);
  return credentialTransaction(async (tx) => {
    const m = await lockedMembership(tx, accountId, membershipId);
    if (m.role === next) return { membershipId, handle: m.handle, role: next, changed: false };
    if (m.role === "owner" || next === "owner") requireOwnerFor(opts, "grant or take away the owner role");
    if (next !== "owner") await keepAnOwner(tx, accountId, m, `changing ${m.handle} to ${next}`);
    await tx.membership.update({ where: { id: m.id }, data: { role: next } });
    await announceCredentialChange(tx, { kind: "person", id: m.userId });
    await writeAudit(tx, {
      accountId,
      actor: actorOf(opts),
      event: AUDIT_EVENT.memberRoleChanged,
      detail: { membership_id: m.id, user_id: m.userId, handle: m.handle, from: m.role, to: next },
    });
    return { membershipId, handle: m.handle, role: next, changed: true };
  });
}

/** What the removal of a person's last seat ended with it (all zero while another seat remains). */
export interface LastSeatEnd {
  sessionsEnded: number;
  tokensRevoked: number;
  identitiesUnbound: number;
  invitationsRevoked: number;
}

/**
 * Removes a member from the account, in one transaction. Access to this account ends with the seat:
 * every page, server action and `/v1` call reads seats per request (seats.ts), every process's
 * credential cache drops the person's PATs (credential-cache.ts), and the person's live
 * inbox streams are told at once (`publishSeatChange`, so they close within a second). Nothing else
 * of the person changes while they keep a seat elsewhere — one account's admin cannot sign a member
 * of another account out. When it was their last seat the person is gone from the Hub: their
 * browser sessions end, their PATs are revoked, their SSO identities unbound and their pending
 * invitations revoked, so a recycled or re-invited address starts clean. The last owner cannot be
 * removed.
 */
export async function removeMember(
  accountId: string,
  membershipId: string,
  opts?: AdminOptions,
): Promise<{ membershipId: string; handle: string; lastSeat: boolean } & LastSeatEnd> {
  return credentialTransaction(async (tx) => {
    const m = await lockedMembership(tx, accountId, membershipId);
    if (m.role === "owner") requireOwnerFor(opts, "remove an owner");
    await keepAnOwner(tx, accountId, m, `removing ${m.handle}`);
    await lockPerson(tx, m.userId);
    await tx.membership.delete({ where: { id: m.id } });
    // The account's trail names its own seat only: whether the person sits elsewhere is no business
    // of this account, so neither the row nor the admin page says what else ended.
    await writeAudit(tx, {
      accountId,
      actor: actorOf(opts),
      event: AUDIT_EVENT.memberRemoved,
      detail: { membership_id: m.id, user_id: m.userId, handle: m.handle, role: m.role },
    });
    await dropSlackBinding(tx, accountId, m.userId, actorOf(opts));
    await dropTeamsBinding(tx, accountId, m.userId, actorOf(opts));
    const lastSeat = (await tx.membership.count({ where: { userId: m.userId } })) === 0;
    const ended = lastSeat ? await endPerson(tx, m.userId) : NOTHING_ENDED;
    await publishSeatChange(tx, m.userId);
    await announceCredentialChange(tx, { kind: "person", id: m.userId });
    return { membershipId, handle: m.handle, lastSeat, ...ended };
  });
}

/**
 * A Slack user bound in this account answers as this seat (docs/notifications.md "Slack: who
 * clicked"), so it goes with the seat and a re-seated person binds afresh. Written here on the
 * table, not through lib/notifications/slack (which reads seats), so the folders do not import each other.
 */
async function dropSlackBinding(tx: Tx, accountId: string, userId: string, actor: string): Promise<void> {
  const row = await tx.slackIdentity.findUnique({ where: { accountId_userId: { accountId, userId } } });
  if (!row) return;
  await tx.slackIdentity.delete({ where: { id: row.id } });
  const detail = {
    slack_identity_id: row.id,
    team_id: row.teamId,
    slack_user_id: row.slackUserId,
    reason: "seat_removed",
  };
  await writeAudit(tx, {
    accountId,
    actor,
    event: AUDIT_EVENT.slackUserUnbound,
    detail: { ...detail, user_id: userId },
  });
  // The person's own stream names no admin of the account: the seat's end did it.
  await writePersonAudit(tx, {
    userId,
    actor: "system:seat_removed",
    event: AUDIT_EVENT.slackUserUnbound,
    detail: { ...detail, account_id: accountId },
  });
}

/** The same for a Teams user bound in this account (docs/notifications.md "Microsoft Teams"). */
async function dropTeamsBinding(tx: Tx, accountId: string, userId: string, actor: string): Promise<void> {
  const row = await tx.teamsIdentity.findUnique({ where: { accountId_userId: { accountId, userId } } });
  if (!row) return;
  await tx.teamsIdentity.delete({ where: { id: row.id } });
  const detail = {
    teams_identity_id: row.id,
    tenant_id: row.tenantId,
    teams_user_id: row.teamsUserId,
    reason: "seat_removed",
  };
  await writeAudit(tx, {
    accountId,
    actor,
    event: AUDIT_EVENT.teamsUserUnbound,
    detail: { ...detail, user_id: userId },
  });
  await writePersonAudit(tx, {
    userId,
    actor: "system:seat_removed",
    event: AUDIT_EVENT.teamsUserUnbound,
    detail: { ...detail, account_id: accountId },
  });
}

const NOTHING_ENDED: LastSeatEnd = { sessionsEnded: 0, tokensRevoked: 0, identitiesUnbound: 0, invitationsRevoked: 0 };

/** The last seat is gone: everything that let the person in, or would let them back in, goes too. */
async function endPerson(tx: Tx, userId: string): Promise<LastSeatEnd> {
  return {
    sessionsEnded: await endSessionsOf(userId, tx),
    tokensRevoked: await revokeTokensOf(tx, userId),
    identitiesUnbound: await unbindIdentitiesOf(tx, userId),
    invitationsRevoked: await revokeInvitationsOf(tx, userId),
  };
}

/** The membership of `handle` in the account `slug` (the CLI names members by handle), or `404`. */
export async function memberByHandle(
  slug: string,
  handle: string,
): Promise<{ accountId: string; membershipId: string }> {
  const m = await db().membership.findFirst({
    where: { handle, account: { slug } },
    select: { id: true, accountId: true },
  });
  if (!m) throw new HubError("not_found", `member ${handle} not found in account ${slug}`);
  return { accountId: m.accountId, membershipId: m.id };
}

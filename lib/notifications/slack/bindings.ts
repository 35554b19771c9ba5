/**
 * Who a Slack user is in the Hub (docs/notifications.md "Slack: who clicked"). A Slack user id
 * answers as a Hub person only after that person, signed in to the Hub, confirmed a bind link
 * (bind-links.ts) — never by matching emails: a Slack workspace admin can give any account any email.
 * Bindings are per account: one Slack user answers as one person there, and a person has at most one
 * Slack user there. Every bind and removal is audited in both the account's trail and the person's
 * own stream (lib/audit/write.ts); a removed seat drops the binding with it (lib/principals/members.ts).
 */
import { AUDIT_EVENT } from "../../audit/events";
import { personActor, writeAudit, writePersonAudit } from "../../audit/write";
import { db, type Tx } from "../../db";
import { mintId } from "@ma2h/protocol/ids";

/** The Hub person a Slack user is bound to in the account, or null. */
export async function slackPersonFor(accountId: string, slackUserId: string): Promise<string | null> {
  const row = await db().slackIdentity.findUnique({
    where: { accountId_slackUserId: { accountId, slackUserId } },
    select: { userId: true },
  });
  return row?.userId ?? null;
}

/** The bound Slack user of each of these people in the account (people without one are absent). */
export async function slackUsersOf(accountId: string, userIds: readonly string[]): Promise<Map<string, string>> {
  if (userIds.length === 0) return new Map();
  const rows = await db().slackIdentity.findMany({
    where: { accountId, userId: { in: [...userIds] } },
    select: { userId: true, slackUserId: true },
  });
  return new Map(rows.map((r) => [r.userId, r.slackUserId]));
}

export type BindOutcome =
  | {
      ok: true;
      /** The binding (new, or the one that already joined these two). */
      identityId: string;
      replaced: boolean;
      /** The person's earlier Slack user in the account, now unbound. */
      previousSlackUserId: string | null;
    }
  | { ok: false; reason: "slack_user_bound_to_someone_else" };

/**
 * Binds a Slack user to a person in the account (inside the redeeming transaction). The person's
 * earlier Slack user there, if any, is replaced; a Slack user already bound to SOMEONE ELSE is
 * refused — that person must remove their binding first. A concurrent bind of the same Slack user
 * by another person fails on the unique (account, Slack user) index instead.
 */
export async function bindSlackUser(
  tx: Tx,
  b: { accountId: string; teamId: string; slackUserId: string; userId: string },
  now: Date,
): Promise<BindOutcome> {
  const holder = await tx.slackIdentity.findUnique({
    where: { accountId_slackUserId: { accountId: b.accountId, slackUserId: b.slackUserId } },
    select: { id: true, userId: true },
  });
  if (holder && holder.userId !== b.userId) return { ok: false, reason: "slack_user_bound_to_someone_else" };
  if (holder) return { ok: true, identityId: holder.id, replaced: false, previousSlackUserId: null };
  const previous = await tx.slackIdentity.findUnique({
    where: { accountId_userId: { accountId: b.accountId, userId: b.userId } },
    select: { id: true, slackUserId: true },
  });
  if (previous) await tx.slackIdentity.delete({ where: { id: previous.id } });
  const identityId = mintId("slackIdentity");
  await tx.slackIdentity.create({ data: { id: identityId, ...b, createdAt: now } });
  return { ok: true, identityId, replaced: previous !== null, previousSlackUserId: previous?.slackUserId ?? null };
}

/** What a bind or removal audit row says: ids and names only, never a token (lib/audit/write.ts). */
export interface SlackBindingAudit {
  accountId: string;
  slug: string;
  userId: string;
  /** The attested actor in the account (`human:<handle>`, or the admin who removed the seat). */
  accountActor: string;
  /** The actor in the person's own stream (`user:<id>`, or `system:seat_removed`). */
  personActor: string;
  identityId: string;
  teamId: string;
  slackUserId: string;
  detail?: Record<string, string | string[] | null>;
}

/** Records a bind or a removal in the account's trail and in the person's own stream. */
export async function auditSlackBinding(
  tx: Tx,
  event: typeof AUDIT_EVENT.slackUserBound | typeof AUDIT_EVENT.slackUserUnbound,
  a: SlackBindingAudit,
  at: Date,
): Promise<void> {
  const detail = {
    slack_identity_id: a.identityId,
    team_id: a.teamId,
    slack_user_id: a.slackUserId,
    ...a.detail,
  };
  await writeAudit(tx, {
    accountId: a.accountId,
    actor: a.accountActor,
    event,
    detail: { ...detail, user_id: a.userId },
    at,
  });
  await writePersonAudit(tx, {
    userId: a.userId,
    actor: a.personActor,
    event,
    detail: { account: a.slug, ...detail },
    at,
  });
}

/** A person's bindings across their accounts, for their settings page. */
export async function slackIdentitiesOf(userId: string) {
  const rows = await db().slackIdentity.findMany({
    where: { userId },
    select: {
      id: true,
      accountId: true,
      teamId: true,
      slackUserId: true,
      createdAt: true,
      account: { select: { slug: true, slackConnection: { select: { teamId: true, teamName: true } } } },
    },
    orderBy: { createdAt: "asc" },
  });
  // The workspace's name is the connection's while it still connects that workspace.
  return rows.map(({ account, ...r }) => ({
    ...r,
    account: { slug: account.slug },
    teamName: account.slackConnection?.teamId === r.teamId ? account.slackConnection.teamName : null,
  }));
}

/**
 * Removes one of the person's own bindings, audited like a bind; another person's id (or an unknown
 * one) removes nothing and answers null — the caller says "not found" either way.
 */
export async function unbindSlackIdentity(
  userId: string,
  id: string,
  now: Date,
): Promise<{ accountId: string; slackUserId: string } | null> {
  return db().$transaction(async (tx) => {
    const row = await tx.slackIdentity.findFirst({
      where: { id, userId },
      select: { accountId: true, teamId: true, slackUserId: true, account: { select: { slug: true } } },
    });
    if (!row) return null;
    await tx.slackIdentity.delete({ where: { id } });
    const seat = await tx.membership.findUnique({
      where: { accountId_userId: { accountId: row.accountId, userId } },
      select: { handle: true },
    });
    await auditSlackBinding(
      tx,
      AUDIT_EVENT.slackUserUnbound,
      {
        accountId: row.accountId,
        slug: row.account.slug,
        userId,
        accountActor: seat ? `human:${seat.handle}` : personActor(userId),
        personActor: personActor(userId),
        identityId: id,
        teamId: row.teamId,
        slackUserId: row.slackUserId,
      },
      now,
    );
    return { accountId: row.accountId, slackUserId: row.slackUserId };
  });
}

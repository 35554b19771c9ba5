/**
 * Who a Teams user is in the Hub (docs/notifications.md "Microsoft Teams: who may click"): a Teams
 * user (its Entra object id, the activity's `from.aadObjectId`) answers as a Hub person only after
 * that person bound it — never by matching names or emails. One Teams user answers as one person per
 * account, and a person has one Teams user per account. Every bind and removal is audited in both the
 * account's trail and the person's own stream, as Slack's are.
 */
import { AUDIT_EVENT } from "../../audit/events";
import { writeAudit, writePersonAudit } from "../../audit/write";
import { db, type Tx } from "../../db";
import { mintId } from "@ma2h/protocol/ids";

/** The Hub person a Teams user of the tenant is bound to in the account, or null. */
export async function teamsPersonFor(accountId: string, tenantId: string, teamsUserId: string): Promise<string | null> {
  const row = await db().teamsIdentity.findUnique({
    where: { accountId_teamsUserId: { accountId, teamsUserId } },
    select: { userId: true, tenantId: true },
  });
  return row && row.tenantId === tenantId ? row.userId : null;
}

/**
 * Binds a Teams user to a person in the account (inside the caller's transaction); the person's
 * earlier Teams user there is replaced; a Teams user bound to someone else is refused.
 */
export async function bindTeamsUser(
  tx: Tx,
  b: {
    accountId: string;
    tenantId: string;
    teamsUserId: string;
    /** The Teams user's `29:` id, for personal cards (null: none known). */
    chatUserId?: string | null;
    userId: string;
    actor: string;
    slug: string;
  },
  now: Date,
): Promise<{ ok: true; identityId: string } | { ok: false; reason: "teams_user_bound_to_someone_else" }> {
  const holder = await tx.teamsIdentity.findUnique({
    where: { accountId_teamsUserId: { accountId: b.accountId, teamsUserId: b.teamsUserId } },
    select: { id: true, userId: true },
  });
  if (holder && holder.userId !== b.userId) return { ok: false, reason: "teams_user_bound_to_someone_else" };
  if (holder) {
    if (b.chatUserId) await tx.teamsIdentity.update({ where: { id: holder.id }, data: { chatUserId: b.chatUserId } });
    return { ok: true, identityId: holder.id };
  }
  const previous = await tx.teamsIdentity.findUnique({
    where: { accountId_userId: { accountId: b.accountId, userId: b.userId } },
  });
  if (previous) {
    await tx.teamsIdentity.delete({ where: { id: previous.id } });
    await auditTeamsBinding(
      tx,
      AUDIT_EVENT.teamsUserUnbound,
      {
        ...b,
        identityId: previous.id,
        tenantId: previous.tenantId,
        teamsUserId: previous.teamsUserId,
        personActor: `user:${b.userId}`,
        reason: "replaced",
      },
      now,
    );
  }
  const identityId = mintId("teamsIdentity");
  await tx.teamsIdentity.create({
    data: {
      id: identityId,
      accountId: b.accountId,
      tenantId: b.tenantId,
      teamsUserId: b.teamsUserId,
      chatUserId: b.chatUserId ?? null,
      userId: b.userId,
      createdAt: now,
    },
  });
  await auditTeamsBinding(tx, AUDIT_EVENT.teamsUserBound, { ...b, identityId, personActor: `user:${b.userId}` }, now);
  return { ok: true, identityId };
}

export async function auditTeamsBinding(
  tx: Tx,
  event: typeof AUDIT_EVENT.teamsUserBound | typeof AUDIT_EVENT.teamsUserUnbound,
  a: {
    accountId: string;
    slug: string;
    userId: string;
    actor: string;
    personActor: string;
    identityId: string;
    tenantId: string;
    teamsUserId: string;
    reason?: string;
  },
  at: Date,
): Promise<void> {
  const detail = {
    teams_identity_id: a.identityId,
    tenant_id: a.tenantId,
    teams_user_id: a.teamsUserId,
    ...(a.reason ? { reason: a.reason } : {}),
  };
  await writeAudit(tx, { accountId: a.accountId, actor: a.actor, event, detail: { ...detail, user_id: a.userId }, at });
  await writePersonAudit(tx, {
    userId: a.userId,
    actor: a.personActor,
    event,
    detail: { account: a.slug, ...detail },
    at,
  });
}

/** Drops every Teams binding of the account (the connection changed or went); returns how many. */
export async function unbindAllTeams(tx: Tx, accountId: string, actor: string, reason: string, at: Date) {
  const rows = await tx.teamsIdentity.findMany({ where: { accountId } });
  if (rows.length === 0) return 0;
  const { slug } = await tx.account.findUniqueOrThrow({ where: { id: accountId }, select: { slug: true } });
  await tx.teamsIdentity.deleteMany({ where: { id: { in: rows.map((r) => r.id) } } });
  for (const r of rows)
    await auditTeamsBinding(
      tx,
      AUDIT_EVENT.teamsUserUnbound,
      {
        accountId,
        slug,
        userId: r.userId,
        actor,
        personActor: `system:teams_${reason}`,
        identityId: r.id,
        tenantId: r.tenantId,
        teamsUserId: r.teamsUserId,
        reason,
      },
      at,
    );
  return rows.length;
}

/**
 * Who a Slack user is in the Hub (#17, docs/notifications.md "Slack: who clicked"). A Slack user id
 * answers as a Hub person only after that person, signed in to the Hub, confirmed a bind link
 * (bind-links.ts) — never by matching emails: a Slack workspace admin can give any account any email.
 * Bindings are per account: one Slack user answers as one person there, and a person has at most one
 * Slack user there.
 */
import { db, type Tx } from "../../db";
import { mintId } from "../../protocol/ids";

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

export type BindOutcome = { ok: true; replaced: boolean } | { ok: false; reason: "slack_user_bound_to_someone_else" };

/**
 * Binds a Slack user to a person in the account (inside the redeeming transaction). The person's
 * earlier Slack user there, if any, is replaced; a Slack user already bound to SOMEONE ELSE is
 * refused — that person must remove their binding first.
 */
export async function bindSlackUser(
  tx: Tx,
  b: { accountId: string; teamId: string; slackUserId: string; userId: string },
  now: Date,
): Promise<BindOutcome> {
  const holder = await tx.slackIdentity.findUnique({
    where: { accountId_slackUserId: { accountId: b.accountId, slackUserId: b.slackUserId } },
    select: { userId: true },
  });
  if (holder && holder.userId !== b.userId) return { ok: false, reason: "slack_user_bound_to_someone_else" };
  if (holder) return { ok: true, replaced: false };
  const removed = await tx.slackIdentity.deleteMany({ where: { accountId: b.accountId, userId: b.userId } });
  await tx.slackIdentity.create({ data: { id: mintId("slackIdentity"), ...b, createdAt: now } });
  return { ok: true, replaced: removed.count > 0 };
}

/** A person's bindings across their accounts, for their settings page. */
export async function slackIdentitiesOf(userId: string) {
  return db().slackIdentity.findMany({
    where: { userId },
    select: {
      id: true,
      accountId: true,
      teamId: true,
      slackUserId: true,
      createdAt: true,
      account: { select: { slug: true } },
    },
    orderBy: { createdAt: "asc" },
  });
}

/** Removes one of the person's own bindings; another person's id removes nothing (false). */
export async function unbindSlackIdentity(
  userId: string,
  id: string,
): Promise<{ accountId: string; slackUserId: string } | null> {
  return db().$transaction(async (tx) => {
    const row = await tx.slackIdentity.findFirst({
      where: { id, userId },
      select: { accountId: true, slackUserId: true },
    });
    if (!row) return null;
    await tx.slackIdentity.delete({ where: { id } });
    return row;
  });
}

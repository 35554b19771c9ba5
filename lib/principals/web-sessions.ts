/**
 * Browser sign-in state on our own models, without next-auth: SSO identities (issuer + subject)
 * bound to invited users, and revocable database sessions stored by token hash. lib/next/auth-options.ts adapts
 * these to next-auth; everything else asks `humanForSessionToken`.
 */
import { clock } from "../clock";
import { db, type Tx } from "../db";
import { mintId } from "../protocol/ids";
import { hashCredential } from "../secrets";

export interface SessionHuman {
  userId: string;
  email: string;
  name: string | null;
  expiresAt: Date;
}

/** The signed-in person behind a session token, or null (unknown, expired or revoked). */
export async function humanForSessionToken(token: string | undefined | null): Promise<SessionHuman | null> {
  if (!token) return null;
  const row = await db().webSession.findUnique({
    where: { tokenHash: hashCredential(token) },
    include: { user: true },
  });
  if (!row || row.expiresAt.getTime() <= clock.now().getTime()) return null;
  return { userId: row.userId, email: row.user.email, name: row.user.name, expiresAt: row.expiresAt };
}

export async function createWebSession(userId: string, token: string, expiresAt: Date): Promise<void> {
  await db().webSession.create({
    data: { id: mintId("webSession"), userId, tokenHash: hashCredential(token), expiresAt, createdAt: clock.now() },
  });
}

export async function extendWebSession(token: string, expiresAt: Date): Promise<void> {
  await db().webSession.updateMany({ where: { tokenHash: hashCredential(token) }, data: { expiresAt } });
}

export async function endWebSession(token: string): Promise<void> {
  await db().webSession.deleteMany({ where: { tokenHash: hashCredential(token) } });
}

/**
 * Ends every browser session of a person at once (when their last seat is removed, members.ts);
 * `client` lets the removal's own transaction do it, so both commit together.
 */
export async function endSessionsOf(userId: string, client: Pick<Tx, "webSession"> = db()): Promise<number> {
  return (await client.webSession.deleteMany({ where: { userId } })).count;
}

/**
 * Unbinds every SSO identity of a person (their last seat is gone, members.ts), in the caller's
 * transaction: a recycled or re-invited address then binds afresh at its next first sign-in
 * (`invitedUserForFirstSignIn`) instead of inheriting the old issuer + subject.
 */
export async function unbindIdentitiesOf(tx: Pick<Tx, "authIdentity">, userId: string): Promise<number> {
  return (await tx.authIdentity.deleteMany({ where: { userId } })).count;
}

export async function userForIdentity(issuer: string, subject: string): Promise<string | null> {
  const row = await db().authIdentity.findUnique({ where: { issuer_subject: { issuer, subject } } });
  return row?.userId ?? null;
}

/**
 * Who may sign in with an identity not seen before: an invited person (a user with at least one
 * membership) whose email the provider asserts verified, and who has no identity bound yet — once
 * bound, only that issuer + subject gets in (never email alone).
 */
export async function invitedUserForFirstSignIn(
  email: string | null | undefined,
  verified: boolean,
): Promise<string | null> {
  if (!email || !verified) return null;
  const user = await db().user.findUnique({
    where: { email: email.trim().toLowerCase() },
    include: { _count: { select: { memberships: true, identities: true } } },
  });
  if (!user || user._count.memberships === 0 || user._count.identities > 0) return null;
  return user.id;
}

export async function bindIdentity(userId: string, provider: string, issuer: string, subject: string): Promise<void> {
  await db().authIdentity.upsert({
    where: { issuer_subject: { issuer, subject } },
    create: { id: mintId("identity"), userId, provider, issuer, subject, createdAt: clock.now() },
    update: {},
  });
}

export async function userById(userId: string) {
  return db().user.findUnique({ where: { id: userId } });
}

export async function userByEmail(email: string) {
  return db().user.findUnique({ where: { email: email.trim().toLowerCase() } });
}

/** next-auth's database-session cookie names (`__Secure-` prefixed when served over https). */
export const SESSION_COOKIE_NAMES = ["__Secure-next-auth.session-token", "next-auth.session-token"] as const;

export function sessionTokenFrom(get: (name: string) => string | undefined): string | undefined {
  for (const name of SESSION_COOKIE_NAMES) {
    const v = get(name);
    if (v) return v;
  }
  return undefined;
}

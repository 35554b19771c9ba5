/**
 * Browser sign-in state on our own models, without next-auth: revocable database sessions stored by
 * token hash (SSO identities are in ./identities.ts). lib/next/auth-options.ts adapts these to
 * next-auth; everything else asks `humanForSessionToken`.
 */
import { clock } from "../clock";
import { servesHttpsOnly } from "../env";
import { db, type Tx } from "../db";
import { mintId } from "@ma2h/protocol/ids";
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

export async function userById(userId: string) {
  return db().user.findUnique({ where: { id: userId } });
}

export async function userByEmail(email: string) {
  return db().user.findUnique({ where: { email: email.trim().toLowerCase() } });
}

/** next-auth's database-session cookie names (`__Secure-` prefixed when served over https). */
export const SESSION_COOKIE_NAMES = ["__Secure-next-auth.session-token", "next-auth.session-token"] as const;

/**
 * The session token the browser presented, or undefined. A Hub served over HTTPS only (TLS or
 * trusted-proxy mode) reads the `__Secure-` cookie alone: a browser sets that prefix only from a
 * secure origin, so a plain-named cookie planted over plaintext or by a sibling subdomain is no
 * session there. In dev mode (plaintext, loopback) next-auth issues the plain name.
 */
export function sessionTokenFrom(get: (name: string) => string | undefined): string | undefined {
  const names = servesHttpsOnly() ? SESSION_COOKIE_NAMES.slice(0, 1) : SESSION_COOKIE_NAMES;
  for (const name of names) {
    const v = get(name);
    if (v) return v;
  }
  return undefined;
}

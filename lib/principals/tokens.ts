/**
 * Operator personal access tokens: `ma2h_pat_…`, stored as SHA-256 only, shown once.
 * A token belongs to a person, not an account, so its audit rows go to the person's own stream
 * (lib/audit/write.ts `writePersonAudit`) — never into an account they merely have a seat in.
 */
import { db, type Tx } from "../db";
import { clock } from "../clock";
import { HubError } from "@ma2h/protocol/errors";
import { mintId } from "@ma2h/protocol/ids";
import { hashCredential } from "../secrets";
import { AUDIT_EVENT, type AuditEventKind } from "../audit/events";
import { personActor, writePersonAudit } from "../audit/write";
import { actorOf, type AdminOptions } from "./admin-scope";
import { announceCredentialChange, credentialTransaction } from "./credential-cache";
import { mintPat } from "./credentials";
import { findUserByEmail } from "./users";

/**
 * Options of the token verbs. `self`: the person acts on their own tokens (the web's settings page),
 * so the row's actor is the person (`user:<id>`); otherwise the caller's actor (`system:cli`).
 */
export interface TokenOptions extends AdminOptions {
  self?: boolean;
}

async function auditForUser(
  tx: Tx,
  userId: string,
  opts: TokenOptions | undefined,
  event: AuditEventKind,
  tokenId: string,
) {
  const actor = opts?.self ? personActor(userId) : actorOf(opts);
  await writePersonAudit(tx, { userId, actor, event, detail: { token_id: tokenId } });
}

/** Issues a PAT for the user with `email`; the plaintext is returned once and never stored. */
export async function createToken(email: string, opts?: AdminOptions): Promise<{ token: string; id: string }> {
  const user = await findUserByEmail(email);
  return createTokenForUser(user.id, opts);
}

/** Issues a PAT for `userId` (the web's "my tokens", where the person is the session's). */
export async function createTokenForUser(userId: string, opts?: TokenOptions): Promise<{ token: string; id: string }> {
  const token = mintPat();
  const id = mintId("token");
  await db().$transaction(async (tx) => {
    await tx.personalAccessToken.create({
      data: { id, userId, tokenHash: hashCredential(token), createdAt: clock.now() },
    });
    await auditForUser(tx, userId, opts, AUDIT_EVENT.tokenCreated, id);
  });
  return { token, id };
}

export interface TokenInfo {
  id: string;
  createdAt: Date;
  revokedAt: Date | null;
  /** Last authenticated use, recorded at most once a minute (authenticate.ts). */
  lastUsedAt: Date | null;
}

/** The person's tokens, newest first, revoked ones included (never a hash). */
export async function listTokens(userId: string): Promise<TokenInfo[]> {
  return db().personalAccessToken.findMany({
    where: { userId },
    select: { id: true, createdAt: true, revokedAt: true, lastUsedAt: true },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
}

/**
 * Revokes a PAT at once — in every process's credential cache too (credential-cache.ts). Revoking an already revoked token is a no-op; an unknown id — or, with
 * `owner`, someone else's token — is `404`.
 */
export async function revokeToken(
  id: string,
  opts?: TokenOptions & { owner?: string },
): Promise<{ id: string; revoked: true }> {
  await credentialTransaction(async (tx) => {
    const where = opts?.owner ? { id, userId: opts.owner } : { id };
    const { count } = await tx.personalAccessToken.updateMany({
      where: { ...where, revokedAt: null },
      data: { revokedAt: clock.now() },
    });
    const row = await tx.personalAccessToken.findFirst({ where, select: { userId: true } });
    if (!row) throw new HubError("not_found", `token ${id} not found`);
    if (count > 0) {
      await announceCredentialChange(tx, { kind: "token", id });
      await auditForUser(tx, row.userId, opts, AUDIT_EVENT.tokenRevoked, id);
    }
  });
  return { id, revoked: true };
}

/**
 * Revokes every live PAT of a person in the caller's transaction (their last seat is gone,
 * members.ts; a `credentialTransaction`, so every credential cache drops them), each recorded as `token.revoked` in the person's own stream — never in an
 * account's trail.
 */
export async function revokeTokensOf(tx: Tx, userId: string): Promise<number> {
  const live = await tx.personalAccessToken.findMany({ where: { userId, revokedAt: null }, select: { id: true } });
  if (live.length === 0) return 0;
  const now = clock.now();
  await tx.personalAccessToken.updateMany({ where: { id: { in: live.map((t) => t.id) } }, data: { revokedAt: now } });
  await announceCredentialChange(tx, { kind: "person", id: userId });
  await writePersonAudit(
    tx,
    live.map((t) => ({
      userId,
      actor: "system:last_seat_removed",
      event: AUDIT_EVENT.tokenRevoked,
      detail: { token_id: t.id },
      at: now,
    })),
  );
  return live.length;
}

/**
 * Operator personal access tokens (issue #2 item 5): `ma2h_pat_…`, stored as SHA-256 only, shown once.
 * A token belongs to a user, not an account, so its audit rows go to every account the user has a seat in.
 */
import { db, type Tx } from "../db";
import { clock } from "../clock";
import { HubError } from "../protocol/errors";
import { mintId } from "../protocol/ids";
import { hashCredential } from "../secrets";
import { actorOf, audit, type AdminOptions } from "./admin";
import { mintPat } from "./credentials";
import { findUserByEmail } from "./users";

async function auditForUser(tx: Tx, userId: string, actor: string, event: string, tokenId: string) {
  const seats = await tx.membership.findMany({ where: { userId }, select: { accountId: true } });
  for (const seat of seats) {
    await audit(tx, { accountId: seat.accountId, actor, event, detail: { token_id: tokenId, user_id: userId } });
  }
}

/** Issues a PAT for the user with `email`; the plaintext is returned once and never stored. */
export async function createToken(email: string, opts?: AdminOptions): Promise<{ token: string; id: string }> {
  const user = await findUserByEmail(email);
  const token = mintPat();
  const id = mintId("token");
  await db().$transaction(async (tx) => {
    await tx.personalAccessToken.create({
      data: { id, userId: user.id, tokenHash: hashCredential(token), createdAt: clock.now() },
    });
    await auditForUser(tx, user.id, actorOf(opts), "token.created", id);
  });
  return { token, id };
}

/** Revokes a PAT at once. Revoking an already revoked token is a no-op; an unknown id is `404`. */
export async function revokeToken(id: string, opts?: AdminOptions): Promise<{ id: string; revoked: true }> {
  await db().$transaction(async (tx) => {
    const { count } = await tx.personalAccessToken.updateMany({
      where: { id, revokedAt: null },
      data: { revokedAt: clock.now() },
    });
    const row = await tx.personalAccessToken.findUnique({ where: { id }, select: { userId: true } });
    if (!row) throw new HubError("not_found", `token ${id} not found`);
    if (count > 0) await auditForUser(tx, row.userId, actorOf(opts), "token.revoked", id);
  });
  return { id, revoked: true };
}

/**
 * Bind links (#17, docs/notifications.md "Slack: who clicked"): when a Slack user who is not bound
 * in the account clicks a button, the Hub answers with an ephemeral message carrying
 * `<MA2H_PUBLIC_URL>/slack/bind/<token>` — 32 random bytes, only the SHA-256 stored (lib/secrets.ts),
 * single-use, valid for `BIND_LINK_TTL_MS`. Whoever opens it signs in to the Hub and confirms; the
 * Slack user is then bound to THAT signed-in person (bindings.ts).
 */
import { randomBytes } from "node:crypto";
import { db } from "../../db";
import { seatFor } from "../../principals/seats";
import { hashCredential } from "../../secrets";
import { type BindOutcome, bindSlackUser } from "./bindings";

export const BIND_TOKEN_BYTES = 32;
export const BIND_LINK_TTL_MS = 15 * 60 * 1000;
/** 32 bytes in base64url, unpadded. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export function bindUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/slack/bind/${token}`;
}

/** Mints a bind link for a Slack user of the account's workspace; the raw token lives only in the URL. */
export async function mintBindLink(
  link: { accountId: string; teamId: string; slackUserId: string },
  publicUrl: string,
  now: Date,
): Promise<string> {
  const token = randomBytes(BIND_TOKEN_BYTES).toString("base64url");
  await db().slackBindToken.create({
    data: {
      tokenHash: hashCredential(token),
      ...link,
      expiresAt: new Date(now.getTime() + BIND_LINK_TTL_MS),
      createdAt: now,
    },
  });
  return bindUrl(publicUrl, token);
}

export interface BindLink {
  accountId: string;
  teamId: string;
  slackUserId: string;
  expiresAt: Date;
}

/** What a link would bind, or null when it is malformed, unknown, used or expired (all alike). */
export async function inspectBindLink(token: string, now: Date): Promise<BindLink | null> {
  if (!TOKEN_SHAPE.test(token)) return null;
  const row = await db().slackBindToken.findUnique({ where: { tokenHash: hashCredential(token) } });
  if (!row || row.usedAt || row.expiresAt <= now) return null;
  return { accountId: row.accountId, teamId: row.teamId, slackUserId: row.slackUserId, expiresAt: row.expiresAt };
}

export type RedeemOutcome =
  | (BindOutcome & { ok: true; link: BindLink })
  | { ok: false; reason: "invalid_link" | "no_seat" | "slack_user_bound_to_someone_else" };

/**
 * Binds the link's Slack user to the signed-in person: the token is spent (one conditional UPDATE:
 * unused and unexpired) in the same transaction that makes the binding, so a link binds once. The
 * person must hold a seat in the link's account; otherwise nothing changes and the link stays usable.
 */
export async function redeemBindLink(token: string, userId: string, now: Date): Promise<RedeemOutcome> {
  const link = await inspectBindLink(token, now);
  if (!link) return { ok: false, reason: "invalid_link" };
  if (!(await seatFor(userId, link.accountId))) return { ok: false, reason: "no_seat" };
  return db()
    .$transaction(async (tx): Promise<RedeemOutcome> => {
      const spent = await tx.slackBindToken.updateMany({
        where: { tokenHash: hashCredential(token), usedAt: null, expiresAt: { gt: now } },
        data: { usedAt: now },
      });
      if (spent.count !== 1) return { ok: false, reason: "invalid_link" };
      const bound = await bindSlackUser(
        tx,
        { accountId: link.accountId, teamId: link.teamId, slackUserId: link.slackUserId, userId },
        now,
      );
      // A refused bind rolls the spend back too: the link stays usable once the other binding is gone.
      if (!bound.ok) throw new BindRefused(bound.reason);
      return { ...bound, link };
    })
    .catch((e) => {
      if (e instanceof BindRefused) return { ok: false as const, reason: e.reason };
      throw e;
    });
}

class BindRefused extends Error {
  constructor(readonly reason: "slack_user_bound_to_someone_else") {
    super(reason);
  }
}

/**
 * Bind links (docs/notifications.md "Slack: who clicked"): when a Slack user who is not bound
 * in the account clicks a button, the Hub answers with an ephemeral message carrying
 * `<MA2H_PUBLIC_URL>/slack/bind/<token>` — 32 random bytes, only the SHA-256 stored (lib/secrets.ts),
 * single-use, valid for `BIND_LINK_TTL_MS`. Whoever opens it signs in to the Hub and confirms; the
 * Slack user is then bound to THAT signed-in person (bindings.ts). The link names no person.
 */
import { randomBytes } from "node:crypto";
import { AUDIT_EVENT } from "../../audit/events";
import { personActor } from "../../audit/write";
import { db } from "../../db";
import { isUniqueViolation } from "../../db-errors";
import { lockPerson } from "../../principals/seat-locks";
import { hashCredential } from "../../secrets";
import { auditSlackBinding, bindSlackUser } from "./bindings";

export const BIND_TOKEN_BYTES = 32;
export const BIND_LINK_TTL_MS = 15 * 60 * 1000;
/** 32 bytes in base64url, unpadded. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export function bindUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/slack/bind/${token}`;
}

/** Longest Slack name or domain kept for the page; Slack's own limits are well under it. */
const NAME_MAX = 80;

/**
 * A name from the click payload as the page may show it: control characters (a newline, a bidi
 * override that reorders what the person reads) removed, trimmed, bounded; empty → null.
 */
export function displayable(value: string | null | undefined): string | null {
  if (typeof value !== "string") return null;
  const clean = value
    .replace(/[\p{Cc}\p{Cf}]/gu, "")
    .trim()
    .slice(0, NAME_MAX);
  return clean === "" ? null : clean;
}

/**
 * Mints a bind link for a Slack user of the account's workspace; the raw token lives only in the URL.
 * The Slack username and workspace domain come from the signed click and are only shown, never
 * matched: the id is what gets bound.
 */
export async function mintBindLink(
  link: {
    accountId: string;
    teamId: string;
    slackUserId: string;
    slackUserName?: string | null;
    teamDomain?: string | null;
  },
  publicUrl: string,
  now: Date,
): Promise<string> {
  const token = randomBytes(BIND_TOKEN_BYTES).toString("base64url");
  await db().slackBindToken.create({
    data: {
      tokenHash: hashCredential(token),
      accountId: link.accountId,
      teamId: link.teamId,
      slackUserId: link.slackUserId,
      slackUserName: displayable(link.slackUserName),
      teamDomain: displayable(link.teamDomain),
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
  /** What the signed click named the Slack user and workspace domain (null when it named nothing). */
  slackUserName: string | null;
  teamDomain: string | null;
  expiresAt: Date;
}

/** Why a link binds nothing by itself: malformed or unknown, spent, or past its time. */
export type LinkProblem = "invalid" | "used" | "expired";

/**
 * The link's state. Used and expired are told apart from unknown so the page can say why (the
 * token is the secret; knowing it was spent helps no one guess another).
 */
export async function checkBindLink(
  token: string,
  now: Date,
): Promise<{ ok: true; link: BindLink } | { ok: false; reason: LinkProblem }> {
  if (!TOKEN_SHAPE.test(token)) return { ok: false, reason: "invalid" };
  const row = await db().slackBindToken.findUnique({ where: { tokenHash: hashCredential(token) } });
  if (!row) return { ok: false, reason: "invalid" };
  if (row.usedAt) return { ok: false, reason: "used" };
  if (row.expiresAt <= now) return { ok: false, reason: "expired" };
  return {
    ok: true,
    link: {
      accountId: row.accountId,
      teamId: row.teamId,
      slackUserId: row.slackUserId,
      slackUserName: row.slackUserName,
      teamDomain: row.teamDomain,
      expiresAt: row.expiresAt,
    },
  };
}

/** What a link would bind, or null when it is malformed, unknown, used or expired (all alike). */
export async function inspectBindLink(token: string, now: Date): Promise<BindLink | null> {
  const state = await checkBindLink(token, now);
  return state.ok ? state.link : null;
}

/**
 * Why a redeem bound nothing: the link's own state; no seat in its account; the account no longer
 * connects the Slack workspace the link was minted for; the Slack user answers as someone else.
 */
export type RedeemRefusal = LinkProblem | "no_seat" | "not_connected" | "slack_user_bound_to_someone_else";

export type RedeemOutcome =
  | {
      ok: true;
      link: BindLink;
      identityId: string;
      replaced: boolean;
      previousSlackUserId: string | null;
    }
  | { ok: false; reason: RedeemRefusal };

/**
 * Binds the link's Slack user to the signed-in person, in one transaction: the person's row is
 * locked first (lib/principals/seat-locks.ts), so a seat removal runs wholly before or after and a
 * binding never outlives its seat; then the seat and the connection are checked, the token is spent
 * (one conditional UPDATE: unused and unexpired), the binding made and audited. Any refusal rolls
 * everything back — a link refused for a missing seat or a Slack user bound elsewhere stays usable
 * until it expires.
 */
export async function redeemBindLink(token: string, userId: string, now: Date): Promise<RedeemOutcome> {
  const state = await checkBindLink(token, now);
  if (!state.ok) return state;
  const { link } = state;
  try {
    return await db().$transaction(async (tx): Promise<RedeemOutcome> => {
      await lockPerson(tx, userId);
      const seat = await tx.membership.findUnique({
        where: { accountId_userId: { accountId: link.accountId, userId } },
        select: { handle: true, account: { select: { slug: true } } },
      });
      if (!seat) throw new BindRefused("no_seat");
      const connection = await tx.slackConnection.findUnique({
        where: { accountId: link.accountId },
        select: { teamId: true },
      });
      if (connection?.teamId !== link.teamId) throw new BindRefused("not_connected");
      const spent = await tx.slackBindToken.updateMany({
        where: { tokenHash: hashCredential(token), usedAt: null, expiresAt: { gt: now } },
        data: { usedAt: now },
      });
      // Lost a race with another redeem of the same link (or it expired meanwhile).
      if (spent.count !== 1) throw new BindRefused("used");
      const bound = await bindSlackUser(
        tx,
        { accountId: link.accountId, teamId: link.teamId, slackUserId: link.slackUserId, userId },
        now,
      );
      if (!bound.ok) throw new BindRefused(bound.reason);
      await auditSlackBinding(
        tx,
        AUDIT_EVENT.slackUserBound,
        {
          accountId: link.accountId,
          slug: seat.account.slug,
          userId,
          accountActor: `human:${seat.handle}`,
          personActor: personActor(userId),
          identityId: bound.identityId,
          teamId: link.teamId,
          slackUserId: link.slackUserId,
          detail: bound.previousSlackUserId ? { replaced_slack_user_id: bound.previousSlackUserId } : undefined,
        },
        now,
      );
      return { ...bound, link };
    });
  } catch (e) {
    if (e instanceof BindRefused) return { ok: false, reason: e.reason };
    // Another person bound the same Slack user in a concurrent transaction (the unique index).
    if (isUniqueViolation(e)) return { ok: false, reason: "slack_user_bound_to_someone_else" };
    throw e;
  }
}

class BindRefused extends Error {
  constructor(readonly reason: RedeemRefusal) {
    super(reason);
  }
}

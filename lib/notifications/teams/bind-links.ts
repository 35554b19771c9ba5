/**
 * Teams bind links (docs/notifications.md "Microsoft Teams: who may click"): an unbound Teams user
 * who clicks an answer is told to open `<MA2H_PUBLIC_URL>/teams/bind/<token>`, where whoever signs
 * in to the Hub and confirms binds that Teams user to THEMSELVES (bindings.ts). The token names the
 * account, the tenant, the Teams user and an expiry, sealed under a Hub MAC (lib/secrets.ts
 * `hubMac`), so nothing is stored until the confirmation; a link works for `TEAMS_BIND_TTL_MS`, and
 * binding twice is harmless (the same binding). The link names no person.
 */
import { db } from "../../db";
import { isUniqueViolation } from "../../db-errors";
import { lockPerson } from "../../principals/seat-locks";
import { hubMac } from "../../secrets";
import { bindTeamsUser } from "./bindings";

export const TEAMS_BIND_TTL_MS = 15 * 60 * 1000;
const MAC_PURPOSE = "teams-bind-link";

export interface TeamsBindLink {
  accountId: string;
  tenantId: string;
  teamsUserId: string;
  /** The clicker's `29:` id, kept for personal cards. */
  chatUserId: string | null;
  expiresAt: Date;
}

export function mintTeamsBindLink(link: Omit<TeamsBindLink, "expiresAt">, publicUrl: string, now: Date): string {
  const payload = Buffer.from(
    JSON.stringify({
      a: link.accountId,
      t: link.tenantId,
      u: link.teamsUserId,
      c: link.chatUserId,
      e: now.getTime() + TEAMS_BIND_TTL_MS,
    }),
  ).toString("base64url");
  return `${publicUrl}/teams/bind/${payload}.${hubMac(MAC_PURPOSE, payload)}`;
}

/** The link's content when its MAC verifies and it has not expired; null otherwise (all alike). */
export function checkTeamsBindLink(token: string, now: Date): TeamsBindLink | null {
  const m = /^([A-Za-z0-9_-]{1,600})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m?.[1] || !m[2]) return null;
  const want = Buffer.from(hubMac(MAC_PURPOSE, m[1]));
  const got = Buffer.from(m[2]);
  if (want.length !== got.length || !want.equals(got)) return null;
  try {
    const v = JSON.parse(Buffer.from(m[1], "base64url").toString("utf8")) as Record<string, unknown>;
    if (typeof v.a !== "string" || typeof v.t !== "string" || typeof v.u !== "string" || typeof v.e !== "number")
      return null;
    if (v.e <= now.getTime()) return null;
    const chatUserId = typeof v.c === "string" && v.c.length <= 200 ? v.c : null;
    return { accountId: v.a, tenantId: v.t, teamsUserId: v.u, chatUserId, expiresAt: new Date(v.e) };
  } catch {
    return null;
  }
}

export type TeamsBindResult =
  | { ok: true; slug: string; teamsUserId: string }
  | { ok: false; reason: "invalid" | "no_seat" | "not_connected" | "bound_elsewhere" };

/**
 * Binds the link's Teams user to the signed-in person: the person's row locked first (a seat removal
 * runs wholly before or after), the seat and the connection's tenant re-checked, then bound and
 * audited in one transaction.
 */
export async function redeemTeamsBindLink(token: string, userId: string, now: Date): Promise<TeamsBindResult> {
  const link = checkTeamsBindLink(token, now);
  if (!link) return { ok: false, reason: "invalid" };
  try {
    return await db().$transaction(async (tx): Promise<TeamsBindResult> => {
      await lockPerson(tx, userId);
      const seat = await tx.membership.findUnique({
        where: { accountId_userId: { accountId: link.accountId, userId } },
        select: { handle: true, account: { select: { slug: true } } },
      });
      if (!seat) return { ok: false, reason: "no_seat" };
      const conn = await tx.teamsConnection.findUnique({
        where: { accountId: link.accountId },
        select: { tenantId: true },
      });
      if (conn?.tenantId !== link.tenantId) return { ok: false, reason: "not_connected" };
      const bound = await bindTeamsUser(
        tx,
        {
          accountId: link.accountId,
          tenantId: link.tenantId,
          teamsUserId: link.teamsUserId,
          chatUserId: link.chatUserId,
          userId,
          actor: `human:${seat.handle}`,
          slug: seat.account.slug,
        },
        now,
      );
      if (!bound.ok) return { ok: false, reason: "bound_elsewhere" };
      return { ok: true, slug: seat.account.slug, teamsUserId: link.teamsUserId };
    });
  } catch (e) {
    if (isUniqueViolation(e)) return { ok: false, reason: "bound_elsewhere" };
    throw e;
  }
}

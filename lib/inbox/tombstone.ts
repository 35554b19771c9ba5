/**
 * A purged message's page (§8.2 retention): what the tombstone kept — type, title, how it ended and
 * when, and whether the answer never reached the agent (§14.2 response track `expired`). Only a
 * person with a seat in the message's account gets it; anyone else gets null (404), exactly as for
 * an unknown id, so a tombstone is no existence oracle across accounts (§9.1).
 */
import { db } from "../db";
import { looksLikeMessageId } from "@ma2h/protocol/ids";
import { seatFor } from "../principals/seats";

export interface TombstoneView {
  id: string;
  account: string;
  /** null on a tombstone written before the summary was kept. */
  type: string | null;
  title: string | null;
  /** The terminal status it was purged in (answered, declined, expired, delivered, …). */
  status: string | null;
  actor: string | null;
  resolvedAt: string | null;
  purgedAt: string;
  /** When the response track ended `expired` (the purge), if the answer never reached the agent. */
  deliveryExpiredAt: string | null;
}

export async function tombstoneForHuman(userId: string, id: string): Promise<TombstoneView | null> {
  if (!looksLikeMessageId(id)) return null;
  const tomb = await db().messageTombstone.findUnique({ where: { id } });
  if (!tomb) return null;
  if (!(await seatFor(userId, tomb.accountId))) return null;
  const account = await db().account.findUnique({ where: { id: tomb.accountId }, select: { slug: true } });
  return {
    id: tomb.id,
    account: account?.slug ?? "",
    type: tomb.type,
    title: tomb.title,
    status: tomb.status,
    actor: tomb.actor,
    resolvedAt: tomb.resolvedAt?.toISOString() ?? null,
    purgedAt: tomb.purgedAt.toISOString(),
    deliveryExpiredAt: tomb.deliveryExpiredAt?.toISOString() ?? null,
  };
}

/**
 * §7 expiry, enforced by the Hub clock whether or not anyone is watching (§9.5). The same CAS as a
 * resolve (lifecycle.ts) with the opposite guard, so expiry and answers can never both win. Called
 * by the expiry job, by the sweep, and lazily by any request that meets an overdue open message.
 */
import { db, type Tx } from "../db";
import { clock } from "../clock";
import { commitTerminal } from "./lifecycle";
import { expiredOutcome } from "./outcomes";
import { envelopeOf } from "./record";

/** Applies expiry to one message if it is open and overdue at `now`. Returns true if it expired it. */
export async function expireInTx(tx: Tx, id: string, now: Date): Promise<boolean> {
  const row = await tx.message.findUnique({ where: { id }, select: { id: true, accountId: true, callbackUrl: true, envelope: true, status: true, expiresAt: true } });
  if (!row || row.status !== "open" || !row.expiresAt || row.expiresAt.getTime() >= now.getTime()) return false;
  const envelope = envelopeOf(row);
  const result = await commitTerminal(tx, row, envelope, "expire", expiredOutcome(envelope, now), now);
  return result.won;
}

export async function expireMessage(id: string, now: Date = clock.now()): Promise<boolean> {
  return db().$transaction((tx) => expireInTx(tx, id, now));
}

/** The sweep: every open message whose `expires_at` has passed, in bounded batches. */
export async function expireDue(now: Date = clock.now(), batch = 200): Promise<number> {
  let total = 0;
  for (;;) {
    const due = await db().message.findMany({
      where: { status: "open", expiresAt: { lt: now } },
      select: { id: true },
      orderBy: { expiresAt: "asc" },
      take: batch,
    });
    for (const { id } of due) if (await expireMessage(id, now)) total++;
    if (due.length < batch) return total;
  }
}

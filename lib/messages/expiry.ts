/**
 * §7 expiry, enforced by the Hub clock whether or not anyone is watching (§9.5). The same CAS as a
 * resolve (lifecycle.ts) with the opposite guard, so expiry and answers can never both win. Called
 * by the expiry job, by the sweep, and lazily by any request that meets an overdue open message.
 */
import { db, type Tx } from "../db";
import { clock } from "../clock";
import { afterTerminal } from "./after-terminal";
import { commitTerminal, type CommitResult } from "./lifecycle";
import { expiredOutcome } from "./outcomes";
import { envelopeOf } from "./record";

/**
 * Applies expiry to one message if it is open and overdue at `now`. The caller owns the transaction
 * and must hand the result to `afterTerminal` once it commits.
 */
export async function expireInTx(tx: Tx, id: string, now: Date): Promise<CommitResult> {
  const row = await tx.message.findUnique({
    where: { id },
    select: { id: true, accountId: true, callbackUrl: true, envelope: true, status: true, expiresAt: true },
  });
  if (row?.status !== "open" || !row.expiresAt || row.expiresAt.getTime() >= now.getTime()) return { won: false };
  const envelope = envelopeOf(row);
  return commitTerminal(tx, row, envelope, "expire", expiredOutcome(envelope, now), now);
}

/** Expires one message if overdue; true when this call expired it. */
export async function expireMessage(id: string, now: Date = clock.now()): Promise<boolean> {
  const result = await db().$transaction((tx) => expireInTx(tx, id, now));
  await afterTerminal(result);
  return result.won;
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
    let won = 0;
    for (const { id } of due) if (await expireMessage(id, now)) won++;
    total += won;
    // A batch that expired nothing is all owed another terminal first (an addressed message whose
    // delivery ended undeliverable, settled by lib/mailbox/undeliverable.ts): stop, do not spin.
    if (due.length < batch || won === 0) return total;
  }
}

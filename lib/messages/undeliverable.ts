/**
 * §7 (v0.5) the undeliverable auto-resolution of an addressed ask/task, through the one §7
 * compare-and-set (lifecycle.ts): it wins only while the message is open and its delivery ended
 * undeliverable at or before its own `expires_at` — a no-op when the addressee already resolved it,
 * the submitter cancelled it, or expiry came first. The worker applies it as soon as the delivery
 * ends (lib/mailbox/undeliverable.ts, with the receipt); every reader and writer of the message
 * applies it too if it meets one still owed, so nobody reads `open` beside an ended track.
 */
import { clock } from "../clock";
import { db, type Tx } from "../db";
import { afterTerminal } from "./after-terminal";
import { expireInTx } from "./expiry";
import { type CommitResult, commitTerminal } from "./lifecycle";
import { undeliverableOutcome } from "./outcomes";
import { envelopeOf, type MessageWithResolution } from "./record";

/** The caller owns the transaction and hands the result to `afterTerminal` once it commits. */
export async function resolveUndeliverableInTx(tx: Tx, id: string, now: Date): Promise<CommitResult> {
  const row = await tx.message.findUnique({
    where: { id },
    select: { id: true, type: true, status: true, envelope: true, toAddress: true },
  });
  if (row?.status !== "open" || row.type === "notify" || row.toAddress === null) return { won: false };
  const envelope = envelopeOf(row);
  return commitTerminal(tx, row, envelope, "undeliverable", undeliverableOutcome(envelope.type, now), now);
}

/**
 * The terminal an open message is owed at `now` that nobody has applied yet — its §7 expiry, or the
 * undeliverable auto-resolution of an addressed one — applied now. The caller owns the transaction
 * and hands the result to `afterTerminal` once it commits.
 */
export async function applyOwedTerminalInTx(tx: Tx, id: string, now: Date): Promise<CommitResult> {
  const expired = await expireInTx(tx, id, now);
  return expired.won ? expired : resolveUndeliverableInTx(tx, id, now);
}

/** Whether a read row is open while its addressed delivery already ended undeliverable (§7). */
export function owesUndeliverable(row: MessageWithResolution): boolean {
  return row.status === "open" && (row.mailbox?.state === "bounced" || row.mailbox?.state === "expired");
}

/** {@link applyOwedTerminalInTx} in its own transaction; true when it applied a terminal. */
export async function applyOwedTerminal(id: string, now: Date = clock.now()): Promise<boolean> {
  const result = await db().$transaction((tx) => applyOwedTerminalInTx(tx, id, now));
  await afterTerminal(result);
  return result.won;
}

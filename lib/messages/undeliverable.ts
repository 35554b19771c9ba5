/**
 * §7 (v0.5) the undeliverable auto-resolution of one addressed ask/task, through the one §7
 * compare-and-set (lifecycle.ts) with cancel's guard: a no-op returning nothing new when the
 * addressee already resolved it, the submitter cancelled it, or its own `expires_at` is due first.
 * The caller (lib/mailbox/undeliverable.ts) owns the transaction and hands the result to
 * `afterTerminal` once it commits.
 */
import type { Tx } from "../db";
import { commitTerminal, type CommitResult } from "./lifecycle";
import { undeliverableOutcome } from "./outcomes";
import { envelopeOf } from "./record";

export async function resolveUndeliverableInTx(tx: Tx, id: string, now: Date): Promise<CommitResult> {
  const row = await tx.message.findUnique({
    where: { id },
    select: { id: true, type: true, status: true, envelope: true },
  });
  if (row?.status !== "open" || row.type === "notify") return { won: false };
  return commitTerminal(
    tx,
    row,
    envelopeOf(row),
    "undeliverable",
    undeliverableOutcome(envelopeOf(row).type, now),
    now,
  );
}

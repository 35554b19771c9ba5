/**
 * §7 / §14.2 what follows an addressed message's undeliverable end. When its `message` entry ends
 * `bounced` (its session ended holding it, or a principal-addressed orphan at retention) or
 * `expired` (never drained by the retention horizon):
 * - a bounce writes one `receipt` to the submit's `agent.session` if that session is still live
 *   (choice A17 — never to siblings; an expiry sends none, §14.2), and
 * - an addressed ask auto-resolves `cancelled`, a task `dismissed`, as `system:undeliverable`.
 * Both commit with the entry's `settled_at` in one transaction, so each happens exactly once. The
 * end itself (lib/sessions/end.ts, ./expiry.ts) NOTIFYs the worker, which settles at once
 * (lib/jobs/wake.ts); the worker's sweep re-finds anything a lost NOTIFY or a crash left (§3.1).
 */
import { clock } from "../clock";
import { db } from "../db";
import { afterTerminal } from "../messages/after-terminal";
import type { CommitResult } from "../messages/lifecycle";
import { resolveUndeliverableInTx } from "../messages/undeliverable";
import { writeReceipt } from "./receipt";
import { runLockUnsettledEntry, runUnsettledEntries } from "./undeliverable.sql";

const BATCH = 200;

/** Settles the undeliverable entries not yet settled (or just `onlyId`); returns how many. */
export async function settleUndeliverable(now: Date = clock.now(), onlyId?: string): Promise<number> {
  const due = await runUnsettledEntries(onlyId ?? null, BATCH);
  let settled = 0;
  for (const { id } of due) if (await settleOne(id, now)) settled++;
  return settled;
}

async function settleOne(id: string, now: Date): Promise<boolean> {
  let result: CommitResult = { won: false };
  const done = await db().$transaction(async (tx) => {
    // Locked and re-checked: two settlers (the wake and the sweep) never both act.
    const entry = await runLockUnsettledEntry(tx, id);
    if (!entry) return false;
    const message = await tx.message.findUnique({
      where: { id },
      select: { accountId: true, agentRowId: true, submitSession: true, agent: { select: { agentId: true } } },
    });
    if (message) {
      const session = entry.to_session ?? entry.claim_session;
      if (entry.state === "bounced" && entry.prior !== null && session !== null && message.submitSession !== null) {
        const live = await tx.agentSession.count({
          where: { id: message.submitSession, agentRowId: message.agentRowId, state: "active", expiresAt: { gt: now } },
        });
        if (live > 0) {
          await writeReceipt(
            tx,
            {
              accountId: message.accountId,
              senderRowId: message.agentRowId,
              senderId: message.agent.agentId,
              senderSession: message.submitSession,
              inReplyTo: id,
              prior: entry.prior,
              at: entry.ended_at,
              session,
            },
            now,
          );
        }
      }
      result = await resolveUndeliverableInTx(tx, id, now);
    }
    await tx.mailboxEntry.update({ where: { id }, data: { settledAt: now } });
    return true;
  });
  await afterTerminal(result);
  return done;
}

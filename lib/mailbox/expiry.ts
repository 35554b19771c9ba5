/**
 * §13.3 / §14.2 the end of an un-acked directive. At its `expires_at` (or `inbound.retention_days`
 * after authoring) the Hub stops delivering it: one never drained ends `expired` (never seen); one
 * drained but never acked ends `bounced` with `prior: "delivered"` (seen, then orphaned) — so
 * `expired` is never written after `delivered`. Ended rows stay readable to their account for
 * `inbound.retention_days`, then are deleted.
 */
import { directiveEnded, type DirectiveEnd } from "../audit/events";
import { writeAudit } from "../audit/write";
import { clock } from "../clock";
import { db } from "../db";
import { inboundLimits } from "../env";
import { publishInboxChange } from "../pubsub/inbox";

/** Ends every live directive whose drop time has passed (or just `onlyId`); returns how many. */
export async function dropDueDirectives(now: Date = clock.now(), onlyId?: string): Promise<number> {
  return db().$transaction(async (tx) => {
    const ended = await tx.$queryRaw<{ id: string; account_id: string; state: DirectiveEnd }[]>`
      UPDATE mailbox_entries
         SET state = CASE WHEN state = 'queued' THEN 'expired' ELSE 'bounced' END,
             prior = CASE WHEN state = 'delivered' THEN 'delivered' ELSE NULL END,
             ended_at = ${now}
       WHERE state IN ('queued', 'delivered')
         AND drop_at <= ${now}
         AND (${onlyId ?? null}::text IS NULL OR id = ${onlyId ?? null})
      RETURNING id, account_id, state`;
    if (ended.length > 0) {
      await writeAudit(
        tx,
        ended.map((r) => ({
          accountId: r.account_id,
          actor: "system:expiry",
          event: directiveEnded(r.state),
          detail: { directive_id: r.id },
          at: now,
        })),
      );
      for (const r of ended) await publishInboxChange(tx, r.account_id, r.id);
    }
    return ended.length;
  });
}

/** Deletes directives that ended more than `inbound.retention_days` ago. */
export async function purgeEndedDirectives(now: Date = clock.now()): Promise<number> {
  const cutoff = new Date(now.getTime() - inboundLimits().retentionDays * 86_400_000);
  const { count } = await db().mailboxEntry.deleteMany({ where: { endedAt: { lt: cutoff } } });
  return count;
}

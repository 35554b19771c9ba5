/**
 * §13.3 / §14.2 the end of an un-acked entry. At its drop time — a directive's `expires_at` (or
 * `inbound.retention_days` after authoring), any other entry's retention horizon — the Hub stops
 * delivering it: one never drained ends `expired` (never seen); a command entry (directive,
 * `message`) drained but never acked ends `bounced` with `prior: "delivered"` (seen, then orphaned:
 * a principal-addressed orphan, or choice A19's session-addressed one) — so `expired` is never
 * written after `delivered`. A queued `message` entry past its message's `expires_at` ends
 * `expired` at once (§9.8: never delivered after it). `response` and `receipt` entries only lapse
 * (`expired`): they never bounce (§14.2). An undeliverable `message` entry NOTIFYs the worker for
 * its receipt and auto-resolution (./undeliverable.ts). Ended rows stay readable for
 * `inbound.retention_days`, then are deleted — a `message` entry never before its message.
 */
import type { DirectiveEnd } from "../audit/events";
import { entryEndAudit } from "../audit/entry-end";
import { COMMAND_KINDS, ENTRY_KIND } from "../protocol/entry-kinds";
import { writeAudit } from "../audit/write";
import { clock } from "../clock";
import { db, type Tx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { inboundLimits } from "../env";
import { publishEntryEnd } from "../pubsub/inbox";

/**
 * Ends the live entries `which` selects as an undelivered entry ends: `expired` if never drained,
 * a drained command entry `bounced` with `prior: "delivered"`; audited as `actor`, each command
 * entry's end published (an undeliverable `message` entry wakes the worker). Returns how many ended.
 */
export async function endLiveEntries(tx: Tx, which: Prisma.Sql, actor: string, now: Date): Promise<number> {
  const ended = await tx.$queryRaw<{ id: string; account_id: string; state: DirectiveEnd; kind: string }[]>`
    UPDATE mailbox_entries
       SET state = CASE WHEN state = 'queued' OR kind <> ALL(${[...COMMAND_KINDS]}) THEN 'expired' ELSE 'bounced' END,
           prior = CASE WHEN state = 'delivered' AND kind = ANY(${[...COMMAND_KINDS]}) THEN 'delivered' ELSE NULL END,
           ended_at = ${now}
     WHERE state IN ('queued', 'delivered') AND (${which})
    RETURNING id, account_id, state, kind`;
  const commands = ended.filter((r) => r.kind === ENTRY_KIND.directive || r.kind === ENTRY_KIND.message);
  if (commands.length > 0) {
    await writeAudit(
      tx,
      commands.map((r) => entryEndAudit(r, r.state, actor, now)),
    );
    for (const r of commands) await publishEntryEnd(tx, r);
  }
  return ended.length;
}

/** Ends every live directive whose drop time has passed (or just `onlyId`); returns how many. */
export async function dropDueDirectives(now: Date = clock.now(), onlyId?: string): Promise<number> {
  return db().$transaction((tx) =>
    endLiveEntries(
      tx,
      Prisma.sql`(drop_at <= ${now} OR (kind = ${ENTRY_KIND.message} AND state = 'queued' AND expires_at <= ${now}))
         AND (${onlyId ?? null}::text IS NULL OR id = ${onlyId ?? null})`,
      "system:expiry",
      now,
    ),
  );
}

/** Deletes directives that ended more than `inbound.retention_days` ago. */
export async function purgeEndedDirectives(now: Date = clock.now()): Promise<number> {
  const cutoff = new Date(now.getTime() - inboundLimits().retentionDays * 86_400_000);
  // A `message` entry holds its message's mailbox track (§8.2): kept while the message is.
  return db().$executeRaw`
    DELETE FROM mailbox_entries e WHERE e.ended_at < ${cutoff}
       AND (e.kind <> ${ENTRY_KIND.message} OR NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = e.id))`;
}

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
import { entryEndAudit } from "../audit/entry-end";
import { ENTRY_KIND } from "@ma2h/protocol/entry-kinds";
import { writeAudit } from "../audit/write";
import { clock } from "../clock";
import { db, type Tx } from "../db";
import { inboundLimits } from "../env";
import { publishEntryEnd } from "../pubsub/inbox";
import { type LiveEntries, runDeleteEndedEntries, runEndEntries } from "./expiry.sql";

/**
 * Ends the live entries `which` selects as an undelivered entry ends: `expired` if never drained,
 * a drained command entry `bounced` with `prior: "delivered"`; audited as `actor`, each command
 * entry's end published (an undeliverable `message` entry wakes the worker). Returns how many ended.
 */
export async function endLiveEntries(tx: Tx, which: LiveEntries, actor: string, now: Date): Promise<number> {
  const ended = await runEndEntries(tx, which, now);
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
  return db().$transaction((tx) => endLiveEntries(tx, { due: now, onlyId: onlyId ?? null }, "system:expiry", now));
}

/** Deletes directives that ended more than `inbound.retention_days` ago. */
export async function purgeEndedDirectives(now: Date = clock.now()): Promise<number> {
  const cutoff = new Date(now.getTime() - inboundLimits().retentionDays * 86_400_000);
  return runDeleteEndedEntries(cutoff);
}

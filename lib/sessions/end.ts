/**
 * §16.3 the one terminal transition of a session: `active → closed` (a DELETE by its owner, or an
 * operator's close) or `active → expired` (its lease lapsed on the Hub clock). Each is a single
 * compare-and-set UPDATE on the session row — `state = 'active'` plus the clock condition that makes
 * the two disjoint (a close needs the lease still running at `now`, an expiry needs it lapsed) — so
 * whichever commits first wins and the loser changes nothing (first terminal wins, dp-019). The
 * operator marker is written by the winning close only (§16.3 "the marker rides the terminal CAS").
 *
 * In the same transaction the §14.2 bounce rules run on the session's un-acked session-addressed
 * directives and `message` entries: `queued` or `delivered` becomes `bounced` with that state stamped once as `prior`. The
 * bounce reads with a fresh snapshot after the session row is ended, so a directive whose author
 * checked the session under a share lock (lib/mailbox/author.ts) is always seen; the sweep's
 * `bounceOrphans` re-applies the rule after any crash (§3.1).
 */
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit } from "../audit/write";
import { db, type Tx } from "../db";
import type { Prisma } from "../generated/prisma/client";
import { publishEntryEnd } from "../pubsub/inbox";
import { publishTerminal, sessionWakeKey } from "../pubsub/terminal";
import { entryEndAudit } from "../audit/entry-end";
import { runBounceSessionEntries, runCloseSessions, runExpireSessions } from "./end.sql";

export type SessionEnd = { kind: "expired" } | { kind: "closed"; actor: string; byOperator: boolean };

/**
 * Ends whichever of `ids` the transition applies to at `now`; returns the ids this call ended. An
 * expiry's `closed_at` is the instant the lease lapsed, not the instant the Hub noticed.
 */
export async function endSessions(tx: Tx, ids: readonly string[], end: SessionEnd, now: Date): Promise<string[]> {
  if (ids.length === 0) return [];
  const list = [...ids];
  const ended =
    end.kind === "expired"
      ? await runExpireSessions(tx, list, now)
      : await runCloseSessions(tx, list, now, end.actor, end.byOperator);
  if (ended.length === 0) return [];
  await writeAudit(
    tx,
    ended.map((r) => ({
      accountId: r.account_id,
      actor: end.kind === "closed" ? end.actor : "system:sessions",
      event: end.kind === "closed" ? AUDIT_EVENT.sessionClosed : AUDIT_EVENT.sessionExpired,
      detail: {
        session_id: r.id,
        ...(end.kind === "closed" && end.byOperator ? { closed_by_operator: true } : {}),
      },
      at: now,
    })),
  );
  await bounceSessionMail(
    tx,
    ended.map((r) => r.id),
    now,
  );
  // §8.7.2: a stream of an ended session closes at once (lib/mailbox/stream.ts).
  for (const r of ended) await publishTerminal(tx, sessionWakeKey(r.id));
  return ended.map((r) => r.id);
}

/**
 * Ends (expired) up to `limit` of the lapsed leases among the rows `where` selects, oldest lapse
 * first, each in the compare-and-set above; returns how many this call ended. Reads call it so they
 * never show `active` past `expires_at`; the worker's sweep calls it for everything.
 */
export async function expireLapsed(where: Prisma.AgentSessionWhereInput, now: Date, limit: number): Promise<number> {
  const lapsed = await db().agentSession.findMany({
    where: { ...where, state: "active", expiresAt: { lte: now } },
    select: { id: true },
    orderBy: { expiresAt: "asc" },
    take: limit,
  });
  if (lapsed.length === 0) return 0;
  const ids = lapsed.map((s) => s.id);
  return (await db().$transaction((tx) => endSessions(tx, ids, { kind: "expired" }, now))).length;
}

/**
 * §14.2 / §16.3: un-acked command entries — directives and `message` entries — addressed to any of
 * these (terminal) sessions become `bounced`, `prior` stamped once with the state they had.
 * `response` and `receipt` entries never bounce. A bounced `message` entry NOTIFYs the worker,
 * which writes its receipt and auto-resolves its ask/task (lib/mailbox/undeliverable.ts; the sweep
 * re-finds any it missed). Returns how many.
 */
export async function bounceSessionMail(tx: Tx, sessionIds: readonly string[], now: Date): Promise<number> {
  if (sessionIds.length === 0) return 0;
  const bounced = await runBounceSessionEntries(tx, [...sessionIds], now);
  if (bounced.length === 0) return 0;
  await writeAudit(
    tx,
    bounced.map((r) => entryEndAudit(r, "bounced", "system:sessions", now, { session_id: r.to_session })),
  );
  for (const r of bounced) await publishEntryEnd(tx, r);
  return bounced.length;
}

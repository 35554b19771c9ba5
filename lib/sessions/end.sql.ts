/** The statements behind lib/sessions/end.ts: the session's terminal compare-and-set and its bounces. */
import type { Tx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { COMMAND_KINDS } from "@ma2h/protocol/entry-kinds";
import { statement } from "../sql-statement";

export interface EndedSessionRow {
  id: string;
  account_id: string;
  state: string;
}

/** Expiry: only a lease lapsed at `now`; `ended_at` is the instant it lapsed, not when the Hub noticed. */
export const expireSessions = statement(
  "expire the lapsed active sessions among these",
  (ids: string[], now: Date) => Prisma.sql`
          UPDATE agent_sessions SET state = 'expired', ended_at = expires_at
           WHERE id = ANY(${ids}) AND state = 'active' AND expires_at <= ${now}
          RETURNING id, account_id, state`,
  [[["sess_a", "sess_b"], new Date(0)]],
);

/** Close: only a lease still running at `now` (disjoint from expiry, so first terminal wins). */
export const closeSessions = statement(
  "close the running active sessions among these",
  (ids: string[], now: Date, actor: string, byOperator: boolean) => Prisma.sql`
          UPDATE agent_sessions
             SET state = 'closed', ended_at = ${now}, closed_by = ${actor},
                 closed_by_operator = ${byOperator}
           WHERE id = ANY(${ids}) AND state = 'active' AND expires_at > ${now}
          RETURNING id, account_id, state`,
  [
    [["sess_a"], new Date(0), "agent:sample", false],
    [["sess_a", "sess_b"], new Date(0), "human:sample", true],
  ],
);

export async function runExpireSessions(tx: Tx, ids: string[], now: Date): Promise<EndedSessionRow[]> {
  return tx.$queryRaw<EndedSessionRow[]>(expireSessions.sql(ids, now));
}

export async function runCloseSessions(
  tx: Tx,
  ids: string[],
  now: Date,
  actor: string,
  byOperator: boolean,
): Promise<EndedSessionRow[]> {
  return tx.$queryRaw<EndedSessionRow[]>(closeSessions.sql(ids, now, actor, byOperator));
}

export interface BouncedEntryRow {
  id: string;
  account_id: string;
  to_session: string;
  kind: string;
}

/**
 * §14.2 / §16.3: un-acked command entries addressed to these (terminal) sessions become `bounced`,
 * `prior` stamped once with the state they had; `response` and `receipt` entries never bounce.
 */
export const bounceSessionEntries = statement(
  "bounce the live command entries addressed to these sessions",
  (sessionIds: string[], now: Date) => Prisma.sql`
    UPDATE mailbox_entries
       SET prior = state, state = 'bounced', ended_at = ${now}
     WHERE to_session = ANY(${sessionIds}) AND state IN ('queued', 'delivered')
       AND kind = ANY(${[...COMMAND_KINDS]})
    RETURNING id, account_id, to_session, kind`,
  [[["sess_a"], new Date(0)]],
);

export async function runBounceSessionEntries(tx: Tx, sessionIds: string[], now: Date): Promise<BouncedEntryRow[]> {
  return tx.$queryRaw<BouncedEntryRow[]>(bounceSessionEntries.sql(sessionIds, now));
}

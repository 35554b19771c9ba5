/**
 * §16.2 / §16.3 presenting a session at a touchpoint, and the lease it renews.
 *
 * A lease is renewed only by client-originated activity naming the session (registration, a
 * `?session=` drain or ack, a submit whose `agent.session` names it) — never by a session-less
 * call or anything a person does; resolve presents without renewing (choice A21). Renewal and
 * expiry are judged against the Hub clock in one atomic step: the renewing UPDATE requires the
 * lease still running at `now`, the expiring one (./end.ts) requires it lapsed, and both require
 * `state = 'active'` on the locked row — so a lapsed lease never comes back to life (dp-019).
 *
 * The §16.3 touchpoint table, by who presents it:
 * - presented (drain, ack, resolve): foreign or unknown → 404; own and expired or self-closed →
 *   `410 gone`; own and operator-closed → `410 session_closed_by_operator`;
 * - submit (`agent.session`, §4.1): foreign or unknown → `422 invalid_field`; own and terminal →
 *   `410 destination_gone`, or `410 session_closed_by_operator` after an operator close.
 */
import { clock } from "../clock";
import { db } from "../db";
import { leaseMarginMs } from "../env";
import { HubError } from "@ma2h/protocol/errors";
import type { AgentPrincipal } from "../principals/types";
import { endSessions } from "./end";
import { runRenewLease } from "./lease.sql";
import { sessionNotFound } from "./read";
import type { SessionRow } from "./record";

export type SessionTouchpoint = "presented" | "submit";

export interface PresentOptions {
  touchpoint: SessionTouchpoint;
  /** Renew the lease and the session's `last_seen` (§16.2); false for resolve (A21). */
  renew: boolean;
}

const SESSION_ID = /^sess_[A-Za-z0-9_-]{1,64}$/u;

function unknownSession(touchpoint: SessionTouchpoint, sessionId: string): HubError {
  return touchpoint === "submit"
    ? new HubError("invalid_field", "agent.session: not one of this agent's sessions (§4.1)")
    : sessionNotFound(sessionId);
}

function terminalSession(touchpoint: SessionTouchpoint, row: SessionRow): HubError {
  if (row.closedByOperator) {
    return new HubError(
      "session_closed_by_operator",
      "this session was closed by an operator: stop, do not re-register, and tell a person (§16.4)",
      { status: 410 },
    );
  }
  return touchpoint === "submit"
    ? new HubError("destination_gone", `agent.session: session ${row.id} has ended (${row.state})`)
    : new HubError("gone", `session ${row.id} has ended (${row.state}); register a new one and continue`);
}

/**
 * The caller's own live session `sessionId`, renewed when asked; otherwise the touchpoint's error.
 * A lease found lapsed is ended here (expired, with its bounces) before the answer is given.
 */
export async function presentSession(
  principal: AgentPrincipal,
  sessionId: string,
  options: PresentOptions,
): Promise<SessionRow> {
  if (!SESSION_ID.test(sessionId)) throw unknownSession(options.touchpoint, sessionId);
  const now = clock.now();
  if (options.renew) {
    if (await runRenewLease(principal.agentRowId, sessionId, now)) {
      const row = await db().agentSession.findUnique({ where: { id: sessionId } });
      if (row) return row;
    }
  }
  const row = await db().agentSession.findFirst({ where: { id: sessionId, agentRowId: principal.agentRowId } });
  if (!row) throw unknownSession(options.touchpoint, sessionId);
  if (row.state === "active" && row.expiresAt > now) return row;
  if (row.state === "active") {
    await db().$transaction((tx) => endSessions(tx, [row.id], { kind: "expired" }, now));
    const ended = await db().agentSession.findUnique({ where: { id: row.id } });
    if (!ended) throw unknownSession(options.touchpoint, sessionId);
    // A close that won the race a moment ago is still a terminal answer; a renewal cannot have won.
    throw terminalSession(options.touchpoint, ended);
  }
  throw terminalSession(options.touchpoint, row);
}

/**
 * §8.7.2 / §16.2: when a held request presenting this session must answer — its `expires_at` minus
 * the nonzero margin the stream keeps (lib/env.ts `leaseMarginMs`), so the client's next request,
 * the renewal, lands while the lease still runs. Used by the stream's hold and the drain's long-poll.
 */
export function leaseHoldEnd(session: Pick<SessionRow, "expiresAt" | "ttlSeconds">): Date {
  return new Date(session.expiresAt.getTime() - leaseMarginMs(session.ttlSeconds));
}

/** `?session=` of a drain, ack or resolve: absent is null; present but empty is a 400. */
export function sessionParam(url: URL): string | null {
  const v = url.searchParams.get("session");
  if (v === null) return null;
  if (v.trim() === "") throw new HubError("validation_error", "session: must be a sess_ id");
  return v.trim();
}

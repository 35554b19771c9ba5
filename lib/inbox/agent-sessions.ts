/**
 * What the inbox shows of an agent's §16 sessions: the list on its page (every seat reads, as for
 * `GET /v1/sessions`, §16.4), whether an operator stopped it (§16.4.1: by whom, since when), and
 * whether this person may stop and resume it (`mayOperate` in lib/sessions/stop.ts, the rule its
 * verbs enforce; this only decides which buttons to draw). On an item, the session that
 * submitted it (`agent.session`, §4.1). Reads only; the stop and the resume go through
 * lib/sessions/stop.ts like the API's `POST /v1/agents/{agent_id}/stop|resume`.
 */
import { HubError } from "@ma2h/protocol/errors";
import type { SessionResource, SessionState } from "@ma2h/protocol/session";
import { seatBySlug } from "../principals/seats";
import type { Seat } from "../principals/types";
import { listSessionsOfAccount, readSessionInAccounts } from "../sessions/read";
import { mayOperate, stopOf } from "../sessions/stop";

export interface AgentStopView {
  /** The attested person who stopped it, `human:<handle>`. */
  by: string;
  at: string;
}

export interface AgentSessionsView {
  /** Live and recently terminal sessions, newest first (terminal ones for the retention window). */
  sessions: SessionResource[];
  stop: AgentStopView | null;
  canStop: boolean;
}

export async function agentSessionsView(seat: Seat, agentRowId: string): Promise<AgentSessionsView> {
  const [{ sessions }, stop] = await Promise.all([
    listSessionsOfAccount(seat.accountId, agentRowId),
    stopOf(agentRowId),
  ]);
  return {
    sessions,
    stop: stop ? { by: stop.stoppedBy, at: stop.stoppedAt.toISOString() } : null,
    canStop: mayOperate(seat),
  };
}

export interface SubmittingSession {
  id: string;
  /** Null once the session is past the terminal retention window (or was never registered here). */
  state: SessionState | null;
  closedByOperator: boolean;
  label: string | null;
}

/**
 * An item's submitting session (`agent.session`, §4.1) as its reader may see it: the id always (it is
 * on the envelope they read), its state while the Hub still keeps that session of the same agent in
 * the item's account (terminal ones for the §16.4 retention window). A person without a seat there
 * learns nothing more than the id.
 */
export async function submittingSession(
  userId: string,
  item: { account: string; agentId: string },
  sessionId: string,
): Promise<SubmittingSession> {
  const seat = await seatBySlug(userId, item.account);
  const row = seat
    ? await readSessionInAccounts([seat.accountId], sessionId).catch((err: unknown) => {
        if (err instanceof HubError && err.code === "not_found") return null;
        throw err;
      })
    : null;
  const known = row !== null && row.agent.agentId === item.agentId ? row : null;
  return {
    id: sessionId,
    state: known ? (known.state as SessionState) : null,
    closedByOperator: known?.closedByOperator === true,
    label: known?.label ?? null,
  };
}

/**
 * §16.4 / §16.4.1 the operator's kill-switch and the durable hard stop.
 *
 * A person with an owner or admin seat (PAT or browser session) may close any session of the
 * account, and stop an agent outright. Either records a stop on the principal (`agent_stops`, its
 * own table, never touched by the retention sweep) and closes every live session of the agent with
 * the operator marker. While the stop stands, registration is refused (./register.ts). Only a person
 * lifts it (`resumeAgent`): nothing on any agent surface can. Stop and lift are audited with the
 * attested person. Senders see nothing new: the closes bounce session mail exactly as a crash would.
 *
 * The stop takes the agent row's `FOR NO KEY UPDATE` lock, the lock registration takes before its
 * authenticating read, so the two serialize and no session is minted after a stop (R236).
 */
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit } from "../audit/write";
import { clock } from "../clock";
import type { Tx } from "../db";
import { db } from "../db";
import { HubError } from "@ma2h/protocol/errors";
import { announceCredentialChange, credentialTransaction } from "../principals/credential-cache";
import { ADMIN_ROLES } from "../principals/seats";
import type { Seat } from "../principals/types";
import { endSessions } from "./end";
import { runLockAgentRow, runRecordStop } from "./stop.sql";

/** Whether the seat may stop, close and resume: owner or admin (what the agent page draws buttons for). */
export function mayOperate(seat: Seat): boolean {
  return ADMIN_ROLES.includes(seat.role);
}

/** The operator's attested actor; a member or viewer is `403 not_authorized`. */
export function assertOperator(seat: Seat): string {
  if (!mayOperate(seat))
    throw new HubError("not_authorized", "only an owner or admin may stop an agent or close its sessions");
  return `human:${seat.handle}`;
}

/**
 * Locks the agent row (the lock registration takes too) and only then reads the Hub clock, which it
 * returns: a registration that held the lock first committed at or before this instant, so no
 * session's `created_at` is later than the stop's `stopped_at` (R236). Read before the lock, a stop
 * that queued behind a registration would carry an instant earlier than the session it then closes.
 */
async function lockAgent(tx: Tx, agentRowId: string): Promise<Date> {
  await runLockAgentRow(tx, agentRowId);
  return clock.now();
}

/**
 * Closes every live session of the agent as the operator, and records the stop (kept if it stands).
 * The caller holds the agent's lock, and `now` is the instant lockAgent read under it.
 */
async function stopInTx(
  tx: Tx,
  agent: { rowId: string; accountId: string },
  actor: string,
  now: Date,
  sessionId: string | null,
): Promise<{ closed: string[]; newlyStopped: boolean }> {
  const live = await tx.agentSession.findMany({
    where: { agentRowId: agent.rowId, state: "active" },
    select: { id: true },
  });
  const closed = await endSessions(
    tx,
    live.map((s) => s.id),
    { kind: "closed", actor, byOperator: true },
    now,
  );
  const newlyStopped = await runRecordStop(tx, {
    agentRowId: agent.rowId,
    accountId: agent.accountId,
    at: now,
    actor,
    sessionId,
  });
  return { closed, newlyStopped };
}

/** `POST /v1/agents/{agent_id}/stop`: closes every live session and stops the agent. Idempotent. */
export async function stopAgent(
  seat: Seat,
  agent: { rowId: string; agentId: string; accountId: string },
): Promise<{ agent_id: string; stopped: true }> {
  const actor = assertOperator(seat);
  await db().$transaction(async (tx) => {
    const now = await lockAgent(tx, agent.rowId);
    const { closed, newlyStopped } = await stopInTx(tx, agent, actor, now, null);
    if (newlyStopped || closed.length > 0)
      await writeAudit(tx, {
        accountId: agent.accountId,
        actor,
        event: AUDIT_EVENT.agentStopped,
        detail: { agent_id: agent.agentId, sessions_closed: closed },
        at: now,
      });
  });
  return { agent_id: agent.agentId, stopped: true };
}

/**
 * The agent page's "Stop and revoke keys": a stop alone ends sessions but leaves the agent's API
 * keys working outside them (submits, polls, its mailbox, §16.4.1 binds only registration), so an
 * operator who wants the agent cut off does both in ONE transaction — the agent's lock, the stop,
 * every live key revoked (each process's credential cache told on commit, credential-cache.ts) — and
 * one `agent.stopped` row naming the keys, beside a `key.revoked` row per key for the key's history.
 * Rotating a new key and resuming bring the agent back. Idempotent: a stopped agent without live
 * keys changes nothing and writes nothing.
 */
export async function stopAgentAndRevokeKeys(
  seat: Seat,
  agent: { rowId: string; agentId: string; accountId: string },
): Promise<{ agent_id: string; stopped: true; keys_revoked: string[] }> {
  const actor = assertOperator(seat);
  const revoked = await credentialTransaction(async (tx) => {
    const now = await lockAgent(tx, agent.rowId);
    const { closed, newlyStopped } = await stopInTx(tx, agent, actor, now, null);
    const keys = await tx.apiKey.findMany({
      where: { agentRowId: agent.rowId, revokedAt: null },
      select: { id: true },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    const ids = keys.map((k) => k.id);
    if (ids.length > 0) {
      await tx.apiKey.updateMany({ where: { id: { in: ids }, revokedAt: null }, data: { revokedAt: now } });
      for (const id of ids) await announceCredentialChange(tx, { kind: "key", id });
    }
    if (newlyStopped || closed.length > 0 || ids.length > 0)
      await writeAudit(tx, [
        {
          accountId: agent.accountId,
          actor,
          event: AUDIT_EVENT.agentStopped,
          detail: { agent_id: agent.agentId, sessions_closed: closed, keys_revoked: ids },
          at: now,
        },
        ...ids.map((id) => ({
          accountId: agent.accountId,
          actor,
          event: AUDIT_EVENT.keyRevoked,
          detail: { agent_id: agent.agentId, key_id: id },
          at: now,
        })),
      ]);
    return ids;
  });
  return { agent_id: agent.agentId, stopped: true, keys_revoked: revoked };
}

/**
 * The operator's `DELETE /v1/sessions/{id}`: when the close wins (the session was live), it carries
 * the marker and records the stop; a session already terminal comes back unchanged and no marker is
 * ever added to it (§16.3). Returns whether this close won.
 */
export async function operatorCloseSession(
  seat: Seat,
  session: { id: string; agentRowId: string; agentId: string; accountId: string },
): Promise<boolean> {
  const actor = assertOperator(seat);
  return db().$transaction(async (tx) => {
    const now = await lockAgent(tx, session.agentRowId);
    const won = await endSessions(tx, [session.id], { kind: "closed", actor, byOperator: true }, now);
    if (won.length === 0) {
      // Lapsed but not yet ended: the expiry is the terminal state, and no stop is recorded.
      await endSessions(tx, [session.id], { kind: "expired" }, now);
      return false;
    }
    // The stop is on the principal (§16.4.1): its other live sessions close with the same marker.
    const { closed } = await stopInTx(
      tx,
      { rowId: session.agentRowId, accountId: session.accountId },
      actor,
      now,
      session.id,
    );
    await writeAudit(tx, {
      accountId: session.accountId,
      actor,
      event: AUDIT_EVENT.agentStopped,
      detail: { agent_id: session.agentId, session_id: session.id, sessions_closed: [session.id, ...closed] },
      at: now,
    });
    return true;
  });
}

/** `POST /v1/agents/{agent_id}/resume`: lifts the stop (a person only). Idempotent. */
export async function resumeAgent(
  seat: Seat,
  agent: { rowId: string; agentId: string; accountId: string },
): Promise<{ agent_id: string; stopped: false }> {
  const actor = assertOperator(seat);
  await db().$transaction(async (tx) => {
    const now = await lockAgent(tx, agent.rowId);
    const lifted = await tx.agentStop.deleteMany({ where: { agentRowId: agent.rowId } });
    if (lifted.count > 0)
      await writeAudit(tx, {
        accountId: agent.accountId,
        actor,
        event: AUDIT_EVENT.agentResumed,
        detail: { agent_id: agent.agentId },
        at: now,
      });
  });
  return { agent_id: agent.agentId, stopped: false };
}

/** Whether the agent is stopped now, and since when and by whom (for the agent's page). */
export async function stopOf(agentRowId: string): Promise<{ stoppedAt: Date; stoppedBy: string } | null> {
  const stop = await db().agentStop.findUnique({ where: { agentRowId } });
  return stop ? { stoppedAt: stop.stoppedAt, stoppedBy: stop.stoppedBy } : null;
}

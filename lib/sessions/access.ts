/**
 * The §16 session routes' operations by caller: an agent credential acts on its own sessions (and
 * reads siblings' under the account's grant, ./read.ts); a person acts on their accounts' sessions —
 * any seat reads, an owner or admin closes (the kill-switch, ./stop.ts). A session outside what the
 * caller may see is 404, whoever asks.
 */
import { clock } from "../clock";
import { db } from "../db";
import { HubError } from "@ma2h/protocol/errors";
import type { SessionResource, SessionScope } from "@ma2h/protocol/session";
import { readerAccountId, seatFor, seatsOf } from "../principals/seats";
import type { AgentPrincipal, Seat } from "../principals/types";
import { endSessions } from "./end";
import {
  listSessionsForAgent,
  listSessionsOfAccount,
  readSessionForAgent,
  readSessionInAccounts,
  sessionNotFound,
} from "./read";
import { sessionResource } from "./record";
import { operatorCloseSession, resumeAgent, stopAgent } from "./stop";

/** Who calls a session route (lib/http/callers.ts sessionCaller). */
export type SessionCaller = { kind: "agent"; principal: AgentPrincipal } | { kind: "human"; userId: string };

/** `GET /v1/sessions`: an agent's own (or account-wide) list; a person's account list. */
export async function listSessions(
  caller: SessionCaller,
  url: URL,
): Promise<{ sessions: SessionResource[]; scope: SessionScope }> {
  if (caller.kind === "agent") return listSessionsForAgent(caller.principal);
  const accountSlug = url.searchParams.get("account");
  const accountId = await readerAccountId(caller.userId, accountSlug?.trim() || null);
  if (!accountId) return { sessions: [], scope: "account" };
  const agentId = url.searchParams.get("agent_id");
  if (agentId === null) return listSessionsOfAccount(accountId);
  const agent = await db().agent.findUnique({ where: { accountId_agentId: { accountId, agentId } } });
  return agent ? listSessionsOfAccount(accountId, agent.id) : { sessions: [], scope: "account" };
}

/** `GET /v1/sessions/{id}`. */
export async function readSession(caller: SessionCaller, sessionId: string): Promise<SessionResource> {
  if (caller.kind === "agent") return readSessionForAgent(caller.principal, sessionId);
  const accounts = (await seatsOf(caller.userId)).map((s) => s.accountId);
  const row = await readSessionInAccounts(accounts, sessionId);
  return sessionResource(row, row.agent.agentId);
}

/** The owner's `DELETE`: closes its own live session; a terminal one comes back unchanged. */
async function closeOwn(principal: AgentPrincipal, sessionId: string): Promise<SessionResource> {
  const row = await db().agentSession.findFirst({ where: { id: sessionId, agentRowId: principal.agentRowId } });
  if (!row) throw sessionNotFound(sessionId);
  const now = clock.now();
  await db().$transaction(async (tx) => {
    const won = await endSessions(
      tx,
      [row.id],
      { kind: "closed", actor: `agent:${principal.agentId}`, byOperator: false },
      now,
    );
    if (won.length === 0) await endSessions(tx, [row.id], { kind: "expired" }, now);
  });
  return readSessionForAgent(principal, sessionId);
}

/** `DELETE /v1/sessions/{id}`: the owner's close, or an operator's kill-switch (§16.4). Idempotent. */
export async function deleteSession(caller: SessionCaller, sessionId: string): Promise<SessionResource> {
  if (caller.kind === "agent") return closeOwn(caller.principal, sessionId);
  const accounts = (await seatsOf(caller.userId)).map((s) => s.accountId);
  const row = await readSessionInAccounts(accounts, sessionId);
  const seat = await seatFor(caller.userId, row.accountId);
  if (!seat) throw sessionNotFound(sessionId);
  await operatorCloseSession(seat, {
    id: row.id,
    agentRowId: row.agentRowId,
    agentId: row.agent.agentId,
    accountId: row.accountId,
  });
  return readSession(caller, sessionId);
}

/**
 * `POST /v1/agents/{agent_id}/stop|resume?account=<slug>`: people only (an agent credential is
 * `403` before anything is looked up — nothing resume-like exists for agents, §16.4.1). An account
 * where the person has no seat, or an agent it does not have, is `404`; a member or viewer `403`.
 */
export async function stopOrResume(
  userId: string,
  agentId: string,
  accountSlug: string | null,
  action: "stop" | "resume",
): Promise<{ agent_id: string; stopped: boolean }> {
  const accountId = await readerAccountId(userId, accountSlug);
  const seat = accountId ? await seatFor(userId, accountId) : null;
  if (!seat) throw agentNotFound(agentId);
  const target = await agentForStop(seat, agentId);
  return action === "stop" ? stopAgent(seat, target) : resumeAgent(seat, target);
}

function agentNotFound(agentId: string): HubError {
  return new HubError("not_found", `agent ${agentId.slice(0, 200)} not found`);
}

/**
 * The agent `agentId` of the seat's account as stopAgent / resumeAgent take it, or `404`: the API's
 * stop and resume and the agent page's buttons look it up the same way.
 */
export async function agentForStop(
  seat: Seat,
  agentId: string,
): Promise<{ rowId: string; agentId: string; accountId: string }> {
  const agent = await db().agent.findUnique({
    where: { accountId_agentId: { accountId: seat.accountId, agentId } },
    select: { id: true, agentId: true },
  });
  if (!agent) throw agentNotFound(agentId);
  return { rowId: agent.id, agentId: agent.agentId, accountId: seat.accountId };
}

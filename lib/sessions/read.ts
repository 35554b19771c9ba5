/**
 * §16.4 reading sessions: who may see which.
 * - An agent always sees its own sessions, live and recently terminal (R229). It sees the account's
 *   other agents' sessions only when the deployment ceiling (`sessions.agent_list_visibility`) allows
 *   it AND the account granted it (`accounts.agent_session_visibility`, off by default); the list
 *   says which applied in `scope` (R231). Another principal's session id is otherwise 404 — the same
 *   answer as an id that never existed (R230). Cross-account: never.
 * - A person with a seat in the account (any role, as for presence §15.3) reads all its sessions.
 * Terminal sessions are readable for `terminal_retention_seconds` after they ended, then 404 — also
 * between the sweep's purges. Before answering, leases in scope that lapsed are ended (./end.ts), so
 * a read never shows `active` past `expires_at`.
 */
import { clock } from "../clock";
import { db, type Tx } from "../db";
import { sessionLimits } from "../env";
import type { Prisma } from "../generated/prisma/client";
import { HubError } from "@ma2h/protocol/errors";
import type { SessionResource, SessionScope } from "@ma2h/protocol/session";
import { agentSessionVisibilityOf } from "../principals/accounts";
import type { AgentPrincipal } from "../principals/types";
import { expireLapsed } from "./end";
import { type SessionRow, sessionResource } from "./record";

const LIST_LIMIT = 500;

/** Whether this agent's account lets its agents read each other's sessions (ceiling ∧ grant). */
export async function accountWideFor(principal: AgentPrincipal, q: Tx = db()): Promise<boolean> {
  return sessionLimits().agentListVisibility && (await agentSessionVisibilityOf(principal.accountId, q));
}

/** Rows still readable at `now`: live, or ended within the retention window. */
function retained(now: Date): Prisma.AgentSessionWhereInput {
  const cutoff = new Date(now.getTime() - sessionLimits().terminalRetentionSeconds * 1000);
  return { OR: [{ endedAt: null }, { endedAt: { gt: cutoff } }] };
}

type RowWithAgent = SessionRow & { agent: { agentId: string } };

async function readRows(where: Prisma.AgentSessionWhereInput): Promise<RowWithAgent[]> {
  const now = clock.now();
  await expireLapsed(where, now, LIST_LIMIT);
  return db().agentSession.findMany({
    where: { AND: [where, retained(now)] },
    include: { agent: { select: { agentId: true } } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: LIST_LIMIT,
  });
}

const toWire = (rows: RowWithAgent[]) => rows.map((r) => sessionResource(r, r.agent.agentId));

/** `GET /v1/sessions` for an agent credential. */
export async function listSessionsForAgent(
  principal: AgentPrincipal,
): Promise<{ sessions: SessionResource[]; scope: SessionScope }> {
  const accountWide = await accountWideFor(principal);
  const where: Prisma.AgentSessionWhereInput = accountWide
    ? { accountId: principal.accountId }
    : { agentRowId: principal.agentRowId };
  return { sessions: toWire(await readRows(where)), scope: accountWide ? "account" : "own" };
}

/** `GET /v1/sessions/{id}` for an agent credential: own always, siblings only under the grant. */
export async function readSessionForAgent(principal: AgentPrincipal, sessionId: string): Promise<SessionResource> {
  const accountWide = await accountWideFor(principal);
  const where: Prisma.AgentSessionWhereInput = accountWide
    ? { id: sessionId, accountId: principal.accountId }
    : { id: sessionId, agentRowId: principal.agentRowId };
  const [row] = await readRows(where);
  if (!row) throw sessionNotFound(sessionId);
  return sessionResource(row, row.agent.agentId);
}

/** A person's list: every session of the account (their seat there was checked by the caller). */
export async function listSessionsOfAccount(
  accountId: string,
  agentRowId?: string,
): Promise<{ sessions: SessionResource[]; scope: SessionScope }> {
  const rows = await readRows({ accountId, ...(agentRowId ? { agentRowId } : {}) });
  return { sessions: toWire(rows), scope: "account" };
}

/** One session of any of `accountIds` (the accounts where the reader holds a seat), or 404. */
export async function readSessionInAccounts(accountIds: readonly string[], sessionId: string): Promise<RowWithAgent> {
  const [row] = await readRows({ id: sessionId, accountId: { in: [...accountIds] } });
  if (!row) throw sessionNotFound(sessionId);
  return row;
}

export function sessionNotFound(sessionId: string): HubError {
  return new HubError("not_found", `session ${sessionId.slice(0, 80)} not found`);
}

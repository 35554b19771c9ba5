/**
 * A stored session (`agent_sessions`) as the §16 wire resource (schema/v0.6/session.schema.json).
 * `closed_by_operator` is emitted only when true (§16.4 true-only emission); `last_seen` only to a
 * caller allowed to read the session at all, which is every caller this is built for (§16.4, R215).
 */
import type { AgentSession } from "../generated/prisma/client";
import type { SessionResource, SessionState } from "@ma2h/protocol/session";

export type SessionRow = AgentSession;

export function sessionResource(row: SessionRow, agentId: string): SessionResource {
  const labels = row.labels as Record<string, string> | null;
  return {
    id: row.id,
    agent_id: agentId,
    state: row.state as SessionState,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    ...(row.lastSeenAt ? { last_seen: row.lastSeenAt.toISOString() } : {}),
    ttl_seconds: row.ttlSeconds,
    ...(row.endedAt ? { closed_at: row.endedAt.toISOString() } : {}),
    ...(row.closedByOperator ? { closed_by_operator: true as const } : {}),
    ...(row.runId !== null ? { run_id: row.runId } : {}),
    ...(row.label !== null ? { label: row.label } : {}),
    ...(row.kind !== null ? { kind: row.kind } : {}),
    ...(row.project !== null ? { project: row.project } : {}),
    ...(labels ? { labels } : {}),
  };
}

/** `agent:<id>#<sess_…>`: a session-qualified address or actor (§4, §6). */
export function sessionAddress(agentId: string, sessionId: string): string {
  return `agent:${agentId}#${sessionId}`;
}

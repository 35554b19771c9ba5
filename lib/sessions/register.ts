/**
 * §16.1 `POST /v1/sessions`, gated by the §16.4.1 hard stop.
 *
 * Registration authenticates on its own, never through the credential cache: the key, its agent,
 * the agent's stop record and its live-session count are one read, taken inside the transaction that
 * creates the session and after the agent's row is locked (`FOR NO KEY UPDATE` — the lock an operator's
 * stop takes too, lib/sessions/stop.ts). So a registration racing a stop either commits first (and
 * the stop then closes the new session) or waits, reads the committed stop and is refused: no
 * session is ever minted after a stop (R236). The same lock serializes one agent's registrations, so
 * the live-session cap holds under a flood. FOR NO KEY UPDATE does not block the foreign-key checks
 * of the agent's submits.
 */
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit } from "../audit/write";
import { clock } from "../clock";
import { db } from "../db";
import { sessionLimits } from "../env";
import { mintId } from "@ma2h/protocol/ids";
import { HubError } from "@ma2h/protocol/errors";
import { type SessionResource, sessionRegisterSchema } from "@ma2h/protocol/session";
import { parseWire } from "@ma2h/protocol/wire";
import { credentialKind } from "../principals/credentials";
import { presentedCredential } from "../principals/authenticate";
import { credentialsEqual, hashCredential } from "../secrets";
import { sessionResource } from "./record";
import { readKeyAgent, runLockAgentOfKey } from "./register.sql";

/** The requested TTL clamped to the advertised bounds (§16.1); the default when none was asked. */
export function clampTtl(requested: number | undefined): number {
  const l = sessionLimits();
  return Math.min(Math.max(requested ?? l.defaultTtlSeconds, l.minTtlSeconds), l.maxTtlSeconds);
}

export async function registerSession(headers: Headers, body: unknown): Promise<SessionResource> {
  const token = presentedCredential(headers);
  if (!token) throw new HubError("unauthenticated", "missing credential: send Authorization: Bearer <agent key>");
  if (credentialKind(token) !== "api_key")
    throw new HubError("unauthenticated", "sessions are registered with an agent credential");
  const request = parseWire(sessionRegisterSchema, body ?? {}, "validation_error");
  const hash = hashCredential(token);
  const limits = sessionLimits();

  return db().$transaction(async (tx) => {
    await runLockAgentOfKey(tx, hash);
    // The Hub clock is read once the lock is held, as the stop reads it (./stop.ts): a session that
    // won the lock before a stop is created no later than the stop's `stopped_at` (R236).
    const now = clock.now();
    // The read that authenticates, after the lock: it sees any stop committed before it (R236).
    const row = await readKeyAgent(tx, hash, now);
    if (!row || !credentialsEqual(row.key_hash, hash) || row.revoked_at)
      throw new HubError("unauthenticated", "invalid or revoked credential");
    // §16.1: `#` is the address separator; such an agent could never be addressed by session.
    if (row.agent_id.includes("#"))
      throw new HubError("invalid_field", "an agent.id containing '#' cannot register sessions (§16.1)");
    if (row.stopped)
      throw new HubError(
        "session_closed_by_operator",
        "this agent was stopped by an operator: do not re-register; a person must resume it (§16.4.1)",
      );
    if (row.live >= limits.maxLivePerAgent) {
      const wait = row.next_lapse ? Math.ceil((row.next_lapse.getTime() - now.getTime()) / 1000) : 60;
      throw new HubError(
        "rate_limited",
        `this agent already holds ${row.live} live sessions (max_live_per_agent ${limits.maxLivePerAgent}); close one with DELETE /v1/sessions/{id}`,
        { retryAfterSeconds: Math.max(wait, 1) },
      );
    }
    const ttl = clampTtl(request.ttl_seconds);
    const created = await tx.agentSession.create({
      data: {
        id: mintId("session"),
        accountId: row.account_id,
        agentRowId: row.agent_row_id,
        runId: request.run_id ?? null,
        label: request.label ?? null,
        kind: request.kind ?? null,
        project: request.project ?? null,
        labels: request.labels ?? undefined,
        ttlSeconds: ttl,
        createdAt: now,
        expiresAt: new Date(now.getTime() + ttl * 1000),
        lastSeenAt: now,
      },
    });
    await writeAudit(tx, {
      accountId: row.account_id,
      actor: `agent:${row.agent_id}`,
      event: AUDIT_EVENT.sessionRegistered,
      detail: { session_id: created.id, ttl_seconds: ttl },
      at: now,
    });
    return sessionResource(created, row.agent_id);
  });
}

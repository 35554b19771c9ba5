/** The statements behind lib/messages/addressing.ts; each runs on the caller's transaction. */
import type { Tx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";

export interface DestinationRow {
  agent_row_id: string;
  senders_restricted: boolean;
  allowed_senders: string[] | null;
}

/** The destination principal in the sender's own account, with its §13.5 sender allowlist. */
export const destinationAgent = statement(
  "an agent of one account by agent id, with its sender allowlist",
  (accountId: string, agentId: string) => Prisma.sql`
    SELECT id AS agent_row_id, senders_restricted, allowed_senders FROM agents
     WHERE account_id = ${accountId} AND agent_id = ${agentId}`,
  [["acc_sample", "sample/agent"]],
);

export async function readDestinationAgent(
  tx: Tx,
  accountId: string,
  agentId: string,
): Promise<DestinationRow | undefined> {
  const [row] = await tx.$queryRaw<DestinationRow[]>(destinationAgent.sql(accountId, agentId));
  return row;
}

/**
 * A named session of the destination — an addressed message's, or a session-addressed directive's
 * (lib/mailbox/author.ts) — share-locked until the writer commits, so a close or expiry racing it
 * waits and then bounces the new entry (lib/sessions/end.ts).
 */
export const destinationSessionForShare = statement(
  "one session of the destination, share-locked",
  (agentRowId: string, sessionId: string) => Prisma.sql`
      SELECT state, expires_at, last_seen_at FROM agent_sessions
       WHERE id = ${sessionId} AND agent_row_id = ${agentRowId} FOR SHARE`,
  [["agt_row_sample", "sess_sample"]],
);

export async function lockDestinationSession(
  tx: Tx,
  agentRowId: string,
  sessionId: string,
): Promise<{ state: string; expires_at: Date; last_seen_at: Date | null } | undefined> {
  const [s] = await tx.$queryRaw<{ state: string; expires_at: Date; last_seen_at: Date | null }[]>(
    destinationSessionForShare.sql(agentRowId, sessionId),
  );
  return s;
}

/** The newest session-bearing activity of the principal, and the newest of a session still live (§15.1). */
export const principalSessionsSeen = statement(
  "an agent's newest session activity, overall and of a live session",
  (agentRowId: string, now: Date) => Prisma.sql`
      SELECT max(last_seen_at) AS last_seen,
             max(last_seen_at) FILTER (WHERE state = 'active' AND expires_at > ${now}) AS live_seen
        FROM agent_sessions WHERE agent_row_id = ${agentRowId}`,
  [["agt_row_sample", new Date(0)]],
);

export async function readPrincipalSessionsSeen(
  tx: Tx,
  agentRowId: string,
  now: Date,
): Promise<{ last_seen: Date | null; live_seen: Date | null } | undefined> {
  const [p] = await tx.$queryRaw<{ last_seen: Date | null; live_seen: Date | null }[]>(
    principalSessionsSeen.sql(agentRowId, now),
  );
  return p;
}

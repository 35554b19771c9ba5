/** The statements behind lib/sessions/stop.ts. */
import type { Tx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";

/** The agent row's `FOR NO KEY UPDATE` lock: the one registration takes too (./register.sql.ts). */
export const lockAgentRow = statement(
  "lock an agent row (FOR NO KEY UPDATE)",
  (agentRowId: string) => Prisma.sql`SELECT id FROM agents WHERE id = ${agentRowId} FOR NO KEY UPDATE`,
  [["agt_row_sample"]],
);

export async function runLockAgentRow(tx: Tx, agentRowId: string): Promise<void> {
  await tx.$queryRaw(lockAgentRow.sql(agentRowId));
}

export interface StopRecord {
  agentRowId: string;
  accountId: string;
  at: Date;
  actor: string;
  sessionId: string | null;
}

/** The stop on the principal (§16.4.1), kept as first recorded while it stands. */
export const recordStop = statement(
  "record an agent's stop unless one stands",
  (s: StopRecord) => Prisma.sql`
    INSERT INTO agent_stops (agent_row_id, account_id, stopped_at, stopped_by, session_id)
    VALUES (${s.agentRowId}, ${s.accountId}, ${s.at}, ${s.actor}, ${s.sessionId})
    ON CONFLICT (agent_row_id) DO NOTHING`,
  [
    [
      {
        agentRowId: "agt_row_sample",
        accountId: "acc_sample",
        at: new Date(0),
        actor: "human:sample",
        sessionId: null,
      },
    ],
    [
      {
        agentRowId: "agt_row_sample",
        accountId: "acc_sample",
        at: new Date(0),
        actor: "human:sample",
        sessionId: "sess_sample",
      },
    ],
  ],
);

/** Whether this call recorded the stop (none stood). */
export async function runRecordStop(tx: Tx, s: StopRecord): Promise<boolean> {
  return (await tx.$executeRaw(recordStop.sql(s))) > 0;
}

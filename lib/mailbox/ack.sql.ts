/** The statement behind lib/mailbox/ack.ts. */
import { AUDIT_EVENT } from "../audit/events";
import { auditDetail, auditRowsInsert } from "../audit/row-fragment.sql";
import { db } from "../db";
import { Prisma } from "../generated/prisma/client";
import { ENTRY_KIND } from "@ma2h/protocol/entry-kinds";
import { inboxNotifySql } from "../pubsub/inbox";
import { statement } from "../sql-statement";
import { DIRECTIVE_KIND } from "./record";

export interface AckEntries {
  agentRowId: string;
  /** The caller's wire `agent.id`: the audit actor is `agent:<id>`. */
  agentId: string;
  ids: string[];
  note: string | null;
  now: Date;
}

/**
 * One statement: the acks, their audit events (a data-modifying WITH always runs to completion)
 * and the inbox NOTIFYs commit together, at a fixed cost per call however many ids it carries.
 * Bound to the caller's own mailbox by `agent_row_id`; only live entries change.
 */
export const ackMailboxEntries = statement(
  "ack live mailbox entries of one agent, audited and NOTIFYd",
  (a: AckEntries) => Prisma.sql`
    WITH acked AS (
      UPDATE mailbox_entries
         SET state = 'acknowledged', acknowledged_at = ${a.now}, ack_note = ${a.note}, ended_at = ${a.now}
       WHERE id = ANY(${a.ids})
         AND agent_row_id = ${a.agentRowId}
         AND state IN ('queued', 'delivered')
      RETURNING id, account_id, kind, content),
    audited AS (
      ${auditRowsInsert({
        accountId: Prisma.sql`account_id`,
        messageId: Prisma.sql`CASE WHEN kind = ${ENTRY_KIND.message} THEN id END`,
        actor: `agent:${a.agentId}`,
        event: Prisma.sql`CASE WHEN kind = ${DIRECTIVE_KIND} THEN ${AUDIT_EVENT.directiveAcknowledged}
                  ELSE ${AUDIT_EVENT.mailboxAcknowledged} END`,
        detail: Prisma.sql`${auditDetail({ note: a.note !== null })} || CASE WHEN kind = ${DIRECTIVE_KIND} THEN jsonb_build_object('directive_id', id)
                                      ELSE '{}'::jsonb END`,
        at: a.now,
      })}
        FROM acked WHERE kind IN (${DIRECTIVE_KIND}, ${ENTRY_KIND.message}))
    SELECT id, kind, content, ${inboxNotifySql("account_id", "id")}::text AS notified FROM acked`,
  [
    [{ agentRowId: "agt_row_sample", agentId: "sample", ids: ["dir_sample"], note: null, now: new Date(0) }],
    [{ agentRowId: "agt_row_sample", agentId: "sample", ids: ["dir_a", "msg_b"], note: "done", now: new Date(0) }],
  ],
);

export async function runAckMailboxEntries(a: AckEntries): Promise<{ id: string; kind: string; content: string }[]> {
  return db().$queryRaw<{ id: string; kind: string; content: string }[]>(ackMailboxEntries.sql(a));
}

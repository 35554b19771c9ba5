/** The statement behind lib/a2a/push.ts: which push configs are due. */
import { db } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";

/**
 * Configs not finished, due, not leased, whose task's status differs from the status last pushed
 * (all of them, or one message's), oldest due first.
 */
export const dueA2aPushConfigs = statement(
  "a2a push configs whose task changed since their last push",
  (now: Date, messageId: string | null, limit: number) => Prisma.sql`SELECT c.id FROM a2a_push_configs c
    JOIN messages m ON m.id = c.message_id
    WHERE c.finished_at IS NULL AND c.next_attempt_at <= ${now}
      AND (c.lease_until IS NULL OR c.lease_until < ${now})
      AND c.pushed_status IS DISTINCT FROM m.status
      ${messageId === null ? Prisma.empty : Prisma.sql`AND c.message_id = ${messageId}`}
    ORDER BY c.next_attempt_at LIMIT ${limit}`,
  [
    [new Date(0), null, 200],
    [new Date(0), "msg_sample", 200],
  ],
);

export async function findDueA2aPushConfigs(now: Date, messageId: string | null, limit: number): Promise<string[]> {
  const rows = await db().$queryRaw<{ id: string }[]>(dueA2aPushConfigs.sql(now, messageId, limit));
  return rows.map((r) => r.id);
}

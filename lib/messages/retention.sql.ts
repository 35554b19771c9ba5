/** The statement behind lib/messages/retention.ts. */
import type { Tx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";

export interface UndeliveredResolution {
  message_id: string;
  account_id: string;
  resolution_id: string;
  ma2h_version: string;
}

/**
 * The due messages' resolutions that never reached delivered-to-agent, row-locked until the purge
 * commits: a concurrent pull or push stamp waits for it and then finds nothing
 * (./delivery-track.sql.ts), so `expired` is never recorded for an answer that was seen.
 */
export const undeliveredResolutionsForUpdate = statement(
  "the resolutions of these messages not yet delivered to the agent, locked",
  (messageIds: string[]) => Prisma.sql`
        SELECT r.message_id, m.account_id, r.id AS resolution_id, m.ma2h_version
        FROM resolutions r JOIN messages m ON m.id = r.message_id
        WHERE r.message_id = ANY(${messageIds}::text[]) AND r.delivered_to_agent_at IS NULL
        FOR UPDATE OF r`,
  [[["msg_a", "msg_b"]]],
);

export async function lockUndeliveredResolutions(tx: Tx, messageIds: string[]): Promise<UndeliveredResolution[]> {
  return tx.$queryRaw<UndeliveredResolution[]>(undeliveredResolutionsForUpdate.sql(messageIds));
}

/** What the held-request store holds for an agent (lib/limits/parked.ts), read straight from PostgreSQL. */
import { db } from "../../lib/db";

/** The agent's live parked count in the PostgreSQL store (every process, live leases only). */
export async function parkedStoreTotal(agentId: string): Promise<number> {
  const agent = await db().agent.findFirstOrThrow({ where: { agentId } });
  const rows = await db().$queryRaw<{ n: number }[]>`
    SELECT COALESCE(SUM(c.count), 0)::int AS n FROM parked_counts c
      JOIN process_leases l ON l.process_id = c.process_id AND l.alive_until > now()
     WHERE c.key = ${`agent:${agent.id}`}`;
  return rows[0]?.n ?? 0;
}

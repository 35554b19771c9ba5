/**
 * The statement behind app/bench/floor/route.ts: the benchmark baseline's one parameterized INSERT
 * (the same as scripts/bench/baseline-server.ts sends), through the Hub's own pool. The table is a
 * migration's (`bench_baseline`, prisma/schema.prisma `BenchBaseline`).
 */
import { db } from "@/lib/db";
import { Prisma } from "@/lib/generated/prisma/client";
import { statement } from "@/lib/sql-statement";

export interface FloorRow {
  id: string;
  agentId: string;
  type: string;
  envelope: string;
  createdAt: Date;
}

export const insertFloorRow = statement(
  "the bench floor's one INSERT",
  (r: FloorRow) => Prisma.sql`INSERT INTO bench_baseline (id, agent_id, type, envelope, created_at)
    VALUES (${r.id}, ${r.agentId}, ${r.type}, ${r.envelope}, ${r.createdAt})`,
  [[{ id: "msg_sample", agentId: "bench/agent-1", type: "ask", envelope: "{}", createdAt: new Date(0) }]],
);

export async function runInsertFloorRow(r: FloorRow): Promise<void> {
  await db().$executeRaw(insertFloorRow.sql(r));
}

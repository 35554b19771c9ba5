/** The statements behind lib/audit/verify.ts (`ma2h-hub audit verify` of the live trail). */
import { db } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";
import type { AuditStream, StoredAuditRow } from "./chain";
import { inStream, STREAM_SAMPLES } from "./seal.sql";

export type SealedAuditRow = StoredAuditRow & { seq: bigint; prev_hash: string; hash: string };

export const sealedRowsAfter = statement(
  "a batch of an audit stream's sealed rows after a seq, in seq order",
  (s: AuditStream, after: bigint, limit: number) => Prisma.sql`
      SELECT id, account_id, user_id, message_id, actor, event, detail, at, seq, prev_hash, hash
        FROM audit_events WHERE ${inStream(s)} AND seq > ${after} ORDER BY seq LIMIT ${limit}`,
  STREAM_SAMPLES.map((s) => [s, 0n, 1000]),
);

export async function readSealedRowsAfter(s: AuditStream, after: bigint, limit: number): Promise<SealedAuditRow[]> {
  return db().$queryRaw<SealedAuditRow[]>(sealedRowsAfter.sql(s, after, limit));
}

export const unsealedCount = statement(
  "how many of an audit stream's rows are not sealed yet",
  (s: AuditStream) => Prisma.sql`
    SELECT count(*) AS n FROM audit_events WHERE ${inStream(s)} AND seq IS NULL`,
  STREAM_SAMPLES.map((s) => [s]),
);

export async function countUnsealed(s: AuditStream): Promise<number> {
  const [count] = await db().$queryRaw<{ n: bigint }[]>(unsealedCount.sql(s));
  return Number(count?.n ?? 0);
}

export const everyStream = statement(
  "every audit stream: each account's, each person's",
  () => Prisma.sql`
      SELECT DISTINCT account_id, user_id FROM audit_events ORDER BY account_id, user_id`,
  [[]],
);

export async function readEveryStream(): Promise<AuditStream[]> {
  const rows = await db().$queryRaw<{ account_id: string | null; user_id: string | null }[]>(everyStream.sql());
  return rows.map((r) => ({ accountId: r.account_id, userId: r.user_id }));
}

/** The statements behind lib/audit/seal.ts (the sealer), and the stream condition verify and purge share. */
import { db, type Tx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";
import type { AuditStream, StoredAuditRow } from "./chain";

/** The advisory-lock class of audit streams ("audt"); the second key is hashtext(stream). */
const STREAM_LOCK_CLASS = 0x61756474;

const ACCOUNT_STREAM: AuditStream = { accountId: "acc_sample", userId: null };
const PERSON_STREAM: AuditStream = { accountId: null, userId: "usr_sample" };
/** One sample per shape of `inStream`: an account's stream, a person's. */
export const STREAM_SAMPLES = [ACCOUNT_STREAM, PERSON_STREAM] as const;

/** The stream's rows, as a WHERE condition that uses the (account_id, seq) / (user_id, seq) indexes. */
export function inStream(s: AuditStream): Prisma.Sql {
  return s.accountId !== null
    ? Prisma.sql`account_id = ${s.accountId}`
    : Prisma.sql`user_id = ${s.userId} AND account_id IS NULL`;
}

export const streamLock = statement(
  "take an audit stream's seal lock for the transaction",
  (stream: string) => Prisma.sql`SELECT pg_advisory_xact_lock(${STREAM_LOCK_CLASS}::int, hashtext(${stream}))`,
  [["account:acc_sample"]],
);

export async function takeStreamLock(tx: Tx, stream: string): Promise<void> {
  await tx.$executeRaw(streamLock.sql(stream));
}

export const streamHead = statement(
  "an audit stream's last sealed row",
  (s: AuditStream) => Prisma.sql`
    SELECT seq, hash FROM audit_events
     WHERE ${inStream(s)} AND seq IS NOT NULL
     ORDER BY seq DESC LIMIT 1`,
  STREAM_SAMPLES.map((s) => [s]),
);

export async function readStreamHead(tx: Tx, s: AuditStream): Promise<{ seq: bigint; hash: string } | undefined> {
  const rows = await tx.$queryRaw<{ seq: bigint; hash: string }[]>(streamHead.sql(s));
  return rows[0];
}

export const unsealedRows = statement(
  "an audit stream's unsealed rows, oldest first",
  (s: AuditStream, limit: number) => Prisma.sql`
    SELECT id, account_id, user_id, message_id, actor, event, detail, at FROM audit_events
     WHERE ${inStream(s)} AND seq IS NULL ORDER BY id LIMIT ${limit}`,
  STREAM_SAMPLES.map((s) => [s, 1000]),
);

export async function readUnsealedRows(tx: Tx, s: AuditStream, limit: number): Promise<StoredAuditRow[]> {
  return tx.$queryRaw<StoredAuditRow[]>(unsealedRows.sql(s, limit));
}

export const sealRows = statement(
  "link a batch of audit rows into their chain (seq, prev_hash, hash), each only if still unsealed",
  (ids: string[], seqs: string[], prevs: string[], hashes: string[]) => Prisma.sql`
    UPDATE audit_events AS a SET seq = v.seq, prev_hash = v.prev_hash, hash = v.hash
      FROM unnest(${ids}::text[]::bigint[], ${seqs}::text[]::bigint[], ${prevs}::text[], ${hashes}::text[])
        AS v(id, seq, prev_hash, hash)
     WHERE a.id = v.id AND a.seq IS NULL`,
  [
    [
      ["1", "2"],
      ["1", "2"],
      ["0".repeat(64), "a".repeat(64)],
      ["a".repeat(64), "b".repeat(64)],
    ],
  ],
);

/** How many rows it sealed. */
export async function runSealRows(
  tx: Tx,
  ids: string[],
  seqs: string[],
  prevs: string[],
  hashes: string[],
): Promise<number> {
  return tx.$executeRaw(sealRows.sql(ids, seqs, prevs, hashes));
}

export const streamsWithoutCheckpoint = statement(
  "audit streams whose signing started and that have no checkpoint yet",
  () => Prisma.sql`
    SELECT s.stream FROM audit_signing_starts s
     WHERE NOT EXISTS (SELECT 1 FROM audit_checkpoints c WHERE c.stream = s.stream) LIMIT 100`,
  [[]],
);

export async function readStreamsWithoutCheckpoint(): Promise<string[]> {
  const rows = await db().$queryRaw<{ stream: string }[]>(streamsWithoutCheckpoint.sql());
  return rows.map((r) => r.stream);
}

export const checkpointCount = statement(
  "how many checkpoints a stream has",
  (stream: string) => Prisma.sql`SELECT count(*) AS n FROM audit_checkpoints WHERE stream = ${stream}`,
  [["account:acc_sample"]],
);

export async function countCheckpoints(tx: Tx, stream: string): Promise<number> {
  const [done] = await tx.$queryRaw<{ n: bigint }[]>(checkpointCount.sql(stream));
  return Number(done?.n ?? 0);
}

export const unsealedStreams = statement(
  "the streams with unsealed audit rows",
  () => Prisma.sql`
    SELECT DISTINCT account_id, user_id FROM audit_events WHERE seq IS NULL LIMIT 1000`,
  [[]],
);

export async function readUnsealedStreams(): Promise<AuditStream[]> {
  const rows = await db().$queryRaw<{ account_id: string | null; user_id: string | null }[]>(unsealedStreams.sql());
  return rows.map((s) => ({ accountId: s.account_id, userId: s.user_id }));
}

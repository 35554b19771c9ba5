/**
 * The sealer: links committed audit rows into their stream's hash chain (./chain.ts), off the
 * request path — request transactions keep writing plain rows, and the worker's `audit-seal` sweep
 * (lib/jobs/sweeps.ts, every second) calls `sealPending`.
 *
 * Concurrency: each stream is sealed in its own transaction under a transaction-scoped advisory lock
 * on the stream key, so two workers (or overlapping sweeps, or a purge) never fork a chain; the
 * unique (stream, seq) indexes hold even if they did. The sealer sees committed rows only (READ
 * COMMITTED, each statement after the lock reads afresh), and seals every unsealed row of the stream
 * in id order. A row whose transaction commits after a higher id was sealed is not skipped: it is
 * unsealed, so the next run seals it with the next seq — the chain's order is seal order, which is id
 * order except for such late commits (docs/decisions/auth-and-security.md).
 */
import { Prisma } from "../generated/prisma/client";
import { db, type Tx } from "../db";
import { AUDIT_GENESIS, chainHash, recordOf, streamOf, type StoredAuditRow } from "./chain";
import { writeCheckpoint } from "./checkpoints";

/** The advisory-lock class of audit streams ("audt"); the second key is hashtext(stream). */
const STREAM_LOCK_CLASS = 0x61756474;
const BATCH = 1000;

export interface AuditStream {
  accountId: string | null;
  userId: string | null;
}

/** The stream's rows, as a WHERE condition that uses the (account_id, seq) / (user_id, seq) indexes. */
export function inStream(s: AuditStream): Prisma.Sql {
  return s.accountId !== null
    ? Prisma.sql`account_id = ${s.accountId}`
    : Prisma.sql`user_id = ${s.userId} AND account_id IS NULL`;
}

/** Takes the stream's seal lock for the rest of the transaction (the sealer, the purge). */
export async function lockStream(tx: Tx, stream: AuditStream): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${STREAM_LOCK_CLASS}::int, hashtext(${streamOf(stream)}))`;
}

/** The stream's last sealed row (seq 0 and the genesis when none is). */
export async function chainHead(tx: Tx, s: AuditStream): Promise<{ seq: number; hash: string }> {
  const rows = await tx.$queryRaw<{ seq: bigint; hash: string }[]>`
    SELECT seq, hash FROM audit_events
     WHERE ${inStream(s)} AND seq IS NOT NULL
     ORDER BY seq DESC LIMIT 1`;
  const head = rows[0];
  return head ? { seq: Number(head.seq), hash: head.hash } : { seq: 0, hash: AUDIT_GENESIS };
}

/**
 * Seals up to one batch of the stream's unsealed rows, inside the caller's transaction and under the
 * stream's lock, and signs the new head (a checkpoint, ./checkpoints.ts) in the same transaction:
 * no row is sealed without a checkpoint at or after it. Returns how many it sealed.
 */
export async function sealStream(tx: Tx, s: AuditStream): Promise<number> {
  await lockStream(tx, s);
  let head = await chainHead(tx, s);
  const rows = await tx.$queryRaw<StoredAuditRow[]>`
    SELECT id, account_id, user_id, message_id, actor, event, detail, at FROM audit_events
     WHERE ${inStream(s)} AND seq IS NULL ORDER BY id LIMIT ${BATCH}`;
  if (rows.length === 0) return 0;
  const ids: string[] = [];
  const seqs: string[] = [];
  const prevs: string[] = [];
  const hashes: string[] = [];
  for (const r of rows) {
    const seq = head.seq + 1;
    const hash = chainHash(head.hash, recordOf(r, seq));
    ids.push(r.id.toString());
    seqs.push(String(seq));
    prevs.push(head.hash);
    hashes.push(hash);
    head = { seq, hash };
  }
  const updated = await tx.$executeRaw`
    UPDATE audit_events AS a SET seq = v.seq, prev_hash = v.prev_hash, hash = v.hash
      FROM unnest(${ids}::text[]::bigint[], ${seqs}::text[]::bigint[], ${prevs}::text[], ${hashes}::text[])
        AS v(id, seq, prev_hash, hash)
     WHERE a.id = v.id AND a.seq IS NULL`;
  // Under the lock nobody else seals this stream; anything else is a bug — roll the batch back.
  if (updated !== rows.length) throw new Error(`audit seal: sealed ${updated} of ${rows.length} rows`);
  await writeCheckpoint(tx, streamOf(s), head);
  return rows.length;
}

/** The stream a chain.ts stream name names. */
function streamNamed(name: string): AuditStream | null {
  const [kind, id] = [name.slice(0, name.indexOf(":")), name.slice(name.indexOf(":") + 1)];
  if (kind === "account") return { accountId: id, userId: null };
  if (kind === "user") return { accountId: null, userId: id };
  return null;
}

/**
 * Streams sealed before checkpoints existed and idle since: the first checkpoint signs their head,
 * covering the SHA-256-chained rows below it. A stream with new rows gets it from its next batch.
 */
async function checkpointOldHeads(): Promise<void> {
  const rows = await db().$queryRaw<{ stream: string }[]>`
    SELECT s.stream FROM audit_signing_starts s
     WHERE NOT EXISTS (SELECT 1 FROM audit_checkpoints c WHERE c.stream = s.stream) LIMIT 100`;
  for (const { stream: name } of rows) {
    const s = streamNamed(name);
    if (!s) continue;
    await db().$transaction(async (tx) => {
      await lockStream(tx, s);
      const [done] = await tx.$queryRaw<{ n: bigint }[]>`
        SELECT count(*) AS n FROM audit_checkpoints WHERE stream = ${name}`;
      const head = await chainHead(tx, s);
      if (Number(done?.n ?? 0) === 0 && head.seq > 0) await writeCheckpoint(tx, name, head);
    });
  }
}

/** Batches per stream in one pass: a backlog (rows from before the upgrade) drains in a few passes. */
const MAX_BATCHES = 20;

/** One pass of the worker's sweep: every stream with unsealed rows, one short transaction per batch. */
export async function sealPending(): Promise<number> {
  const streams = await db().$queryRaw<{ account_id: string | null; user_id: string | null }[]>`
    SELECT DISTINCT account_id, user_id FROM audit_events WHERE seq IS NULL LIMIT 1000`;
  let sealed = 0;
  await checkpointOldHeads();
  for (const s of streams) {
    const stream = { accountId: s.account_id, userId: s.user_id };
    for (let i = 0; i < MAX_BATCHES; i++) {
      const n = await db().$transaction((tx) => sealStream(tx, stream));
      sealed += n;
      if (n < BATCH) break;
    }
  }
  return sealed;
}

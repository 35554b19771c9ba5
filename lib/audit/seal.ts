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
import { db, type Tx } from "../db";
import { AUDIT_GENESIS, type AuditStream, chainHash, recordOf, streamOf } from "./chain";
import { writeCheckpoint } from "./checkpoints";
import {
  countCheckpoints,
  readStreamHead,
  readStreamsWithoutCheckpoint,
  readUnsealedRows,
  readUnsealedStreams,
  runSealRows,
  takeStreamLock,
} from "./seal.sql";

const BATCH = 1000;

/** Takes the stream's seal lock for the rest of the transaction (the sealer, the purge). */
export async function lockStream(tx: Tx, stream: AuditStream): Promise<void> {
  await takeStreamLock(tx, streamOf(stream));
}

/** The stream's last sealed row (seq 0 and the genesis when none is). */
export async function chainHead(tx: Tx, s: AuditStream): Promise<{ seq: number; hash: string }> {
  const head = await readStreamHead(tx, s);
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
  const rows = await readUnsealedRows(tx, s, BATCH);
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
  const updated = await runSealRows(tx, ids, seqs, prevs, hashes);
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
  for (const name of await readStreamsWithoutCheckpoint()) {
    const s = streamNamed(name);
    if (!s) continue;
    await db().$transaction(async (tx) => {
      await lockStream(tx, s);
      const done = await countCheckpoints(tx, name);
      const head = await chainHead(tx, s);
      if (done === 0 && head.seq > 0) await writeCheckpoint(tx, name, head);
    });
  }
}

/** Batches per stream in one pass: a backlog (rows from before the upgrade) drains in a few passes. */
const MAX_BATCHES = 20;

/** One pass of the worker's sweep: every stream with unsealed rows, one short transaction per batch. */
export async function sealPending(): Promise<number> {
  const streams = await readUnsealedStreams();
  let sealed = 0;
  await checkpointOldHeads();
  for (const stream of streams) {
    for (let i = 0; i < MAX_BATCHES; i++) {
      const n = await db().$transaction((tx) => sealStream(tx, stream));
      sealed += n;
      if (n < BATCH) break;
    }
  }
  return sealed;
}

/**
 * The audit hash chain (#19), pure: what a sealed row's hash covers and how a stream's rows link.
 * Each stream — one account's trail, or one person's own stream — is its own chain, sealed by the
 * worker (./seal.ts) in the order it seals, seq 1, 2, 3, …:
 *
 *   hash = SHA-256 hex of  prev_hash + "\n" + JCS(record)      (RFC 8785, lib/protocol/jcs.ts)
 *   record = { id, seq, stream, at, actor, event, message_id, detail }
 *
 * `id` is the row id as a decimal string, `seq` a number, `stream` `account:<account id>` or
 * `user:<user id>`, `at` RFC 3339 with milliseconds (UTC, as the export prints it), `message_id` and
 * `detail` null when absent. The first row's prev_hash is AUDIT_GENESIS. Everything in the record is
 * in the JSON Lines export, so an export verifies without the database.
 */
import { jcs, sha256Hex } from "../protocol/jcs";

/** The prev_hash of every stream's first row: 64 zeros. */
export const AUDIT_GENESIS = "0".repeat(64);

export interface ChainRecord {
  id: string;
  seq: number;
  stream: string;
  at: string;
  actor: string;
  event: string;
  message_id: string | null;
  detail: unknown;
}

export function streamOf(row: { accountId: string | null; userId: string | null }): string {
  return row.accountId !== null ? `account:${row.accountId}` : `user:${row.userId}`;
}

/** An audit row as the database returns it (raw SQL, snake_case). */
export interface StoredAuditRow {
  id: bigint;
  account_id: string | null;
  user_id: string | null;
  message_id: string | null;
  actor: string;
  event: string;
  detail: unknown;
  at: Date;
}

/** The record a stored row's hash covers, at the given seq. */
export function recordOf(r: StoredAuditRow, seq: number): ChainRecord {
  return {
    id: r.id.toString(),
    seq,
    stream: streamOf({ accountId: r.account_id, userId: r.user_id }),
    at: r.at.toISOString(),
    actor: r.actor,
    event: r.event,
    message_id: r.message_id,
    detail: r.detail ?? null,
  };
}

export function chainHash(prevHash: string, r: ChainRecord): string {
  const record: ChainRecord = {
    id: r.id,
    seq: r.seq,
    stream: r.stream,
    at: r.at,
    actor: r.actor,
    event: r.event,
    message_id: r.message_id ?? null,
    detail: r.detail ?? null,
  };
  return sha256Hex(`${prevHash}\n${jcs(record)}`);
}

/** A sealed row as verification reads it (from the database or an export line). */
export interface SealedRecord extends ChainRecord {
  prev_hash: string;
  hash: string;
}

export type BreakReason = "hash_mismatch" | "prev_hash_mismatch" | "seq_gap" | "malformed";

export interface ChainBreak {
  id: string;
  reason: BreakReason;
}

/**
 * Walks one stream's sealed rows in seq order. `anchor` is what the first row must link to: the
 * genesis at seq 1, or — for an export cut by time — whatever the first row names (null: accept it).
 * Returns the number verified before the first break, and the break.
 */
export class ChainWalker {
  private expectSeq: number | null;
  private expectPrev: string | null;
  verified = 0;
  broken: ChainBreak | null = null;

  constructor(start: { seq: number; prevHash: string } | null) {
    this.expectSeq = start?.seq ?? null;
    this.expectPrev = start?.prevHash ?? null;
  }

  /** False once the chain is broken (the caller stops). */
  step(r: SealedRecord): boolean {
    if (this.broken) return false;
    if (this.expectSeq === null && r.seq === 1) this.expectPrev = AUDIT_GENESIS;
    if (this.expectSeq !== null && r.seq !== this.expectSeq) return this.fail(r.id, "seq_gap");
    if (this.expectPrev !== null && r.prev_hash !== this.expectPrev) return this.fail(r.id, "prev_hash_mismatch");
    if (chainHash(r.prev_hash, r) !== r.hash) return this.fail(r.id, "hash_mismatch");
    this.verified += 1;
    this.expectSeq = r.seq + 1;
    this.expectPrev = r.hash;
    return true;
  }

  private fail(id: string, reason: BreakReason): false {
    this.broken = { id, reason };
    return false;
  }
}

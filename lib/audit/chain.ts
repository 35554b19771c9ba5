/**
 * The audit hash chain, pure: what a sealed row's hash covers and how a stream's rows link.
 * Each stream — one account's trail, or one person's own stream — is its own chain, sealed by the
 * worker (./seal.ts) in the order it seals, seq 1, 2, 3, …:
 *
 *   hash = SHA-256 hex of  prev_hash + "\n" + JCS(record)      (RFC 8785, packages/protocol/src/jcs.ts)
 *   record = { id, seq, stream, at, actor, event, message_id, detail }
 *
 * `id` is the row id as a decimal string, `seq` a number, `stream` `account:<account id>` or
 * `user:<user id>`, `at` RFC 3339 with milliseconds (UTC, as the export prints it), `message_id` and
 * `detail` null when absent. The first row's prev_hash is AUDIT_GENESIS. Everything in the record is
 * in the JSON Lines export, so an export verifies without the database.
 *
 * A chain alone proves nothing to someone who can rewrite every row after an edit. So each sealing
 * batch ends with a signed checkpoint (./checkpoints.ts): an ed25519 signature (unpadded base64url)
 * over the UTF-8 JCS of `checkpointContext` — `{ "hash", "ma2h": "audit-checkpoint", "seq" (decimal
 * string), "stream" }` — by a key published at `/.well-known/ma2h-audit-keys`. A row is trusted once
 * a checkpoint at or after it, with a valid signature, names the hash its chain leads to.
 */
import { jcs, sha256Hex } from "@ma2h/protocol/jcs";
import { decodeMac, kidFor, publicKeyFromJwk } from "@ma2h/protocol/signing";
import { verifyContext } from "@ma2h/protocol/verify";

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

/** An audit stream: an account's (`accountId`), or a person's outside any account (`userId`). */
export interface AuditStream {
  accountId: string | null;
  userId: string | null;
}

export function streamOf(row: AuditStream): string {
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

export type BreakReason =
  | "hash_mismatch"
  | "prev_hash_mismatch"
  | "seq_gap"
  | "malformed"
  /** A validly signed checkpoint names another hash: a row from the one named to it was rewritten. */
  | "checkpoint_mismatch"
  /** Sealed rows no signed checkpoint covers (the table was cut or re-chained past its last one). */
  | "not_checkpointed"
  /** A checkpoint whose signature does not verify under any trusted key. */
  | "bad_signature"
  /** A line not sealed yet (refused in an export unless asked). */
  | "unsealed"
  /** An export that starts mid-chain with nothing to link its first line to. */
  | "no_anchor";

/** The trusted audit keys, public halves by kid. */
export type CheckpointKeys = Map<string, Uint8Array>;

export interface Checkpoint {
  stream: string;
  seq: number;
  hash: string;
  kid: string;
  signature: string;
}

/** What a checkpoint's signature covers (see the header). */
export function checkpointContext(c: { stream: string; seq: number; hash: string }): Record<string, string> {
  return { ma2h: "audit-checkpoint", stream: c.stream, seq: String(c.seq), hash: c.hash };
}

/**
 * The keys of a saved `/.well-known/ma2h-audit-keys` document; a key whose kid is not its RFC 7638
 * thumbprint is left out. Null when the document is not a key set.
 */
export function keysFromDocument(doc: unknown): CheckpointKeys | null {
  if (typeof doc !== "object" || doc === null || !Array.isArray((doc as { keys?: unknown }).keys)) return null;
  const keys: CheckpointKeys = new Map();
  for (const jwk of (doc as { keys: unknown[] }).keys) {
    const pub = publicKeyFromJwk(jwk);
    if (pub && kidFor(pub) === (jwk as { kid?: unknown }).kid) keys.set(kidFor(pub), pub);
  }
  return keys;
}

/** Whether the checkpoint's signature verifies under the key its kid names. */
export function checkpointSigned(c: Checkpoint, keys: CheckpointKeys): boolean {
  const key = keys.get(c.kid);
  const mac = decodeMac(c.signature);
  if (!key || !mac) return false;
  return verifyContext(checkpointContext(c), mac, [{ alg: "ed25519", publicKey: key }]);
}

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
  /** seq → hash of the stream's validly signed checkpoints. */
  private readonly checkpoints = new Map<number, string>();
  /** The first row walked since the last checkpoint that confirmed the chain (null: all confirmed). */
  private unconfirmedFrom: string | null = null;
  verified = 0;
  checkpointed = 0;
  broken: ChainBreak | null = null;

  /** `start` null: whatever the first row names is taken as given (the caller checks its anchor). */
  constructor(start: { seq: number; prevHash: string } | null) {
    this.expectSeq = start?.seq ?? null;
    this.expectPrev = start?.prevHash ?? null;
  }

  /** Adds checkpoints whose signatures the caller verified. */
  confirmWith(checkpoints: Iterable<{ seq: number; hash: string }>): void {
    for (const c of checkpoints) this.checkpoints.set(c.seq, c.hash);
  }

  /** False once the chain is broken (the caller stops). */
  step(r: SealedRecord): boolean {
    if (this.broken) return false;
    if (this.expectSeq === null && r.seq === 1) this.expectPrev = AUDIT_GENESIS;
    if (this.expectSeq !== null && r.seq !== this.expectSeq) return this.fail(r.id, "seq_gap");
    if (this.expectPrev !== null && r.prev_hash !== this.expectPrev) return this.fail(r.id, "prev_hash_mismatch");
    if (chainHash(r.prev_hash, r) !== r.hash) return this.fail(r.id, "hash_mismatch");
    this.unconfirmedFrom ??= r.id;
    const signed = this.checkpoints.get(r.seq);
    if (signed !== undefined) {
      // The rows since the last good checkpoint lead to another hash than the signed one: the first
      // of them is the first that may have been rewritten (one sealing batch is one checkpoint).
      if (signed !== r.hash) return this.fail(this.unconfirmedFrom, "checkpoint_mismatch");
      this.unconfirmedFrom = null;
      this.checkpointed += 1;
    }
    this.verified += 1;
    this.expectSeq = r.seq + 1;
    this.expectPrev = r.hash;
    return true;
  }

  /** After the last row: rows no signed checkpoint covers are a break, unless the caller allows them. */
  finish(allowUncovered: boolean): void {
    if (!this.broken && this.unconfirmedFrom !== null && !allowUncovered)
      this.fail(this.unconfirmedFrom, "not_checkpointed");
  }

  private fail(id: string, reason: BreakReason): false {
    this.broken = { id, reason };
    return false;
  }
}

/**
 * The per-process credential cache: what an API key or PAT authenticated as, for a few seconds,
 * so a steady stream of requests from one agent does not read PostgreSQL to authenticate each one.
 * Keyed by the credential's SHA-256 (`hashCredential`), never the secret; only successful lookups
 * are kept (an unknown or revoked credential is read every time, so a new key works at once
 * everywhere). TTL and size: docs/decisions/operations-and-performance.md, "Credential cache".
 *
 * Revocation stays immediate (docs/security.md, "Credential cache"):
 * - The revoking transaction NOTIFYs `ma2h_credentials` (lib/pubsub/credentials.ts), sent on commit,
 *   and every process holding a cache LISTENs on its one connection (lib/pubsub/listener.ts) and drops
 *   the entries it names — within milliseconds in every web, worker or other process.
 * - The process that revoked drops them itself after the commit (`credentialTransaction`), so its
 *   very next request is refused without waiting for its own NOTIFY.
 * - A lookup that raced an invalidation is not stored (the epoch), so an entry read before a commit
 *   cannot be put back after the drop.
 * - While the LISTEN connection is down the cache is emptied and bypassed: a notification sent
 *   meanwhile is gone for good, so nothing cached may be trusted until LISTEN is back.
 *
 * The cache holds what a credential *is* (key → agent, PAT → person), never what the caller may do:
 * seats and roles are read per request (seats.ts). A future operator's stop of an agent's sessions
 * must likewise be checked on every request from PostgreSQL, never from here.
 */
import { db, type Tx } from "../db";
import { env } from "../env";
import { processWide } from "../process-wide";
import { CREDENTIALS_CHANNEL } from "../pubsub/channels";
import { type CredentialChange, parseCredentialChange, publishCredentialChange } from "../pubsub/credentials";
import { notificationListener, type Subscription } from "../pubsub/listener";
import type { Principal } from "./types";

/** A successful lookup: the principal and the credential's last recorded use (authenticate.ts). */
export interface CachedCredential {
  readonly principal: Principal;
  /** Updated in place when authenticate.ts records a use, so a hit does not record it again. */
  lastUsedAt: Date | null;
}

interface Entry extends CachedCredential {
  /** On the monotonic clock (`performance.now()`): wall-clock jumps and a pinned test clock do not stretch it. */
  expiresAt: number;
}

/** What the cache needs of the process's LISTEN connection (lib/pubsub/listener.ts). */
export interface CacheListener {
  subscribe(channel: typeof CREDENTIALS_CHANNEL, sub: Subscription): () => void;
  ready(): Promise<void>;
  isListening(): boolean;
}

export interface CredentialCacheOptions {
  /** 0 turns the cache off: every lookup reads PostgreSQL. */
  ttlMs: number;
  maxEntries: number;
  /** The listener to use; asked on every lookup, so a closed and re-made listener is picked up. */
  listener: () => CacheListener;
  now?: () => number;
}

function names(change: CredentialChange, p: Principal): boolean {
  switch (change.kind) {
    case "key":
      return p.kind === "agent" && p.keyId === change.id;
    case "agent":
      return p.kind === "agent" && p.agentRowId === change.id;
    case "account":
      return p.kind === "agent" && p.accountId === change.id;
    case "token":
      return p.kind === "operator" && p.tokenId === change.id;
    case "person":
      return p.kind === "operator" && p.userId === change.id;
  }
}

export class CredentialCache {
  /** By credential hash, least recently used first (a Map iterates in insertion order). */
  private readonly entries = new Map<string, Entry>();
  /** Bumped by every drop and every lost connection: a lookup that spans one is not stored. */
  private epoch = 0;
  private listener: CacheListener | null = null;
  private unsubscribe: (() => void) | null = null;
  private readonly now: () => number;

  constructor(private readonly options: CredentialCacheOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  /**
   * The credential `hash` stands for: a fresh entry, or `load()` (which throws for an unknown or
   * revoked credential — never cached). A loaded result is kept only if the cache was usable for
   * the whole lookup and nothing was dropped meanwhile.
   */
  async resolve(hash: string, load: () => Promise<CachedCredential>): Promise<CachedCredential> {
    if (!this.usable()) return load();
    const started = this.now();
    const hit = this.entries.get(hash);
    if (hit) {
      this.entries.delete(hash);
      if (hit.expiresAt > started) {
        this.entries.set(hash, hit);
        return hit;
      }
    }
    const epoch = this.epoch;
    const loaded = await load();
    if (epoch === this.epoch && this.usable()) this.store(hash, { ...loaded, expiresAt: started + this.options.ttlMs });
    return loaded;
  }

  /** Drops every entry `change` names (a revocation, here or heard from another process). */
  drop(change: CredentialChange): void {
    this.epoch++;
    for (const [hash, entry] of this.entries) if (names(change, entry.principal)) this.entries.delete(hash);
  }

  /** Empties the cache (a lost connection, an unreadable payload). */
  clear(): void {
    this.epoch++;
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private store(hash: string, entry: Entry): void {
    this.entries.set(hash, entry);
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.options.maxEntries) break;
      this.entries.delete(oldest);
    }
  }

  /** On, and the LISTEN connection up (subscribing on first use, which starts it). */
  private usable(): boolean {
    if (this.options.ttlMs <= 0) return false;
    const listener = this.options.listener();
    if (listener !== this.listener) this.listenOn(listener);
    if (listener.isListening()) return true;
    // Down (or still connecting): bypass, and make sure a connection is on its way. The listener
    // reconnects by itself after a drop; this also covers a first connect that failed.
    listener.ready().catch(() => {});
    return false;
  }

  private listenOn(listener: CacheListener): void {
    this.unsubscribe?.();
    this.clear();
    this.listener = listener;
    this.unsubscribe = listener.subscribe(CREDENTIALS_CHANNEL, {
      payload: (p) => {
        const change = parseCredentialChange(p);
        if (change) this.drop(change);
        else this.clear();
      },
      lost: () => this.clear(),
    });
  }
}

const SLOT = "ma2h.credential-cache";

/** The process-wide cache (lib/process-wide.ts: the route bundles and the server share it). */
export function credentialCache(): CredentialCache {
  return processWide(
    SLOT,
    () =>
      new CredentialCache({
        ttlMs: env().MA2H_AUTH_CACHE_TTL_MS,
        maxEntries: env().MA2H_AUTH_CACHE_MAX_ENTRIES,
        listener: notificationListener,
      }),
  );
}

/** The changes each open `credentialTransaction` announced, by its transaction client. */
const announced = () => processWide("ma2h.credential-announced", () => new WeakMap<Tx, CredentialChange[]>());

/**
 * One transaction that may revoke or change credentials. What it announces reaches every other
 * process by NOTIFY on commit; this process's cache drops it here, right after the commit, so the
 * very next request in this process is refused without waiting for its own LISTEN to hear it.
 */
export async function credentialTransaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
  const changes: CredentialChange[] = [];
  try {
    return await db().$transaction(async (tx) => {
      announced().set(tx, changes);
      return work(tx);
    });
  } finally {
    // After a rollback too: a drop only costs a lookup.
    for (const change of changes) credentialCache().drop(change);
  }
}

/**
 * Ends cached authentications of what `change` names, in every process, when `tx` commits. `tx`
 * must come from `credentialTransaction`, so this process drops them as soon as it commits.
 */
export async function announceCredentialChange(tx: Tx, change: CredentialChange): Promise<void> {
  const changes = announced().get(tx);
  if (!changes) throw new Error("announceCredentialChange needs a transaction from credentialTransaction");
  changes.push(change);
  // Also now: a lookup in flight across the commit sees the epoch move and is not stored.
  credentialCache().drop(change);
  await publishCredentialChange(tx, change);
}

/**
 * The agent's two memories, pluggable and async: the §9.2 / §9.7 `jti` replay cache and the §6 /
 * §13.4 at-most-once dedup (reserve before the work, release when it failed). The memory stores
 * last as long as the process; the file stores survive a restart and are safe between processes
 * sharing a directory: each key is one file named by the SHA-256 of the key, created with the
 * exclusive flag `wx`, so of two racing writers exactly one creates it (the file system is the lock).
 */
import { createHash, randomBytes } from "node:crypto";
import { link, mkdir, open, readdir, readFile, rename, unlink } from "node:fs/promises";
import { join } from "node:path";

export interface ReplayStore {
  /** false when `jti` was already seen (a replay); else records it until `expiresAt` */
  checkAndRecord(jti: string, expiresAt: Date, now: Date): Promise<boolean>;
}

export interface DedupStore {
  /** Reserves `key` before the work (§13.4 step 3); false when it was already reserved/done. */
  reserve(key: string): Promise<boolean>;
  /** Undo a reservation whose work failed, so a redelivery is acted on. */
  release(key: string): Promise<void>;
  has(key: string): Promise<boolean>;
}

/** §6: the at-most-once key of a Response, `(in_reply_to, resolution_id)`, as one string. */
export function responseDedupKey(r: { in_reply_to: string; resolution_id: string }): string {
  // JSON keeps the pair unambiguous whatever characters either id holds.
  return `response:${JSON.stringify([r.in_reply_to, r.resolution_id])}`;
}

/** How often a store sweeps out expired `jti`s (lazily, on a call). */
const PRUNE_EVERY_MS = 60_000;

export class MemoryReplayStore implements ReplayStore {
  readonly #expiresAt = new Map<string, number>();
  #prunedAt = 0;

  async checkAndRecord(jti: string, expiresAt: Date, now: Date): Promise<boolean> {
    const nowMs = now.getTime();
    this.#prune(nowMs);
    const seen = this.#expiresAt.get(jti);
    if (seen !== undefined && seen > nowMs) return false;
    this.#expiresAt.set(jti, expiresAt.getTime());
    return true;
  }

  /** Live entries are never evicted: dropping one would let its replay through. */
  #prune(nowMs: number): void {
    if (nowMs - this.#prunedAt < PRUNE_EVERY_MS) return;
    this.#prunedAt = nowMs;
    for (const [jti, expiresAt] of this.#expiresAt) if (expiresAt <= nowMs) this.#expiresAt.delete(jti);
  }
}

export class MemoryDedupStore implements DedupStore {
  readonly #keys = new Set<string>();

  async reserve(key: string): Promise<boolean> {
    if (this.#keys.has(key)) return false;
    this.#keys.add(key);
    return true;
  }

  async release(key: string): Promise<void> {
    this.#keys.delete(key);
  }

  async has(key: string): Promise<boolean> {
    return this.#keys.has(key);
  }
}

/** One file per key, named by its SHA-256 (any key becomes a safe, fixed-length file name). */
class KeyDirectory {
  #ready: Promise<unknown> | null = null;

  constructor(readonly dir: string) {}

  path(key: string): string {
    return join(this.dir, createHash("sha256").update(key, "utf8").digest("hex"));
  }

  /** Created on demand, private to this user: the keys say which answers the agent acted on. */
  ready(): Promise<unknown> {
    this.#ready ??= mkdir(this.dir, { recursive: true, mode: 0o700 }).catch((e: unknown) => {
      this.#ready = null;
      throw e;
    });
    return this.#ready;
  }

  /** Creates the file exclusively with `content`; false when it exists already. */
  async create(key: string, content: string): Promise<boolean> {
    await this.ready();
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(this.path(key), "wx", 0o600);
    } catch (e) {
      if (isCode(e, "EEXIST")) return false;
      throw e;
    }
    try {
      await handle.writeFile(content, "utf8");
    } finally {
      await handle.close();
    }
    return true;
  }

  async read(file: string): Promise<string | null> {
    try {
      return await readFile(file, "utf8");
    } catch (e) {
      if (isCode(e, "ENOENT")) return null;
      throw e;
    }
  }

  /**
   * Removes a file without racing a writer: it is first renamed to a unique name (atomic), so only
   * what was renamed is looked at. When `keep(content)` says it must stay (another process wrote it
   * afresh), it is linked back — unless yet another one was created meanwhile. Returns whether it
   * was removed.
   */
  async remove(file: string, keep: (content: string | null) => boolean = () => false): Promise<boolean> {
    const grave = `${file}.${randomBytes(6).toString("hex")}.del`;
    try {
      await rename(file, grave);
    } catch (e) {
      if (isCode(e, "ENOENT")) return false;
      throw e;
    }
    const kept = keep(await this.read(grave));
    try {
      if (kept) await link(grave, file);
    } catch (e) {
      if (!isCode(e, "EEXIST")) throw e;
    } finally {
      await unlink(grave).catch(() => {});
    }
    return !kept;
  }
}

/**
 * A file per seen `jti` holding its expiry (`{"expires_at_ms":…}`). An expired entry is replaced
 * on its next sighting and swept lazily at most once a minute. (verifyPush / verifyDirective record
 * a `jti` until the end of its `t`'s window and refuse any `t` outside it first, so a `jti` they
 * present again is always inside its recorded lifetime: the replace path only serves other callers.)
 */
export class FileReplayStore implements ReplayStore {
  readonly #files: KeyDirectory;
  #prunedAt = 0;

  constructor(dir: string) {
    this.#files = new KeyDirectory(dir);
  }

  async checkAndRecord(jti: string, expiresAt: Date, now: Date): Promise<boolean> {
    await this.#prune(now.getTime());
    const content = JSON.stringify({ expires_at_ms: expiresAt.getTime() });
    if (await this.#files.create(jti, content)) return true;
    const file = this.#files.path(jti);
    if (!isExpired(await this.#files.read(file), now.getTime())) return false;
    // Expired: take it out of the way — unless someone recorded it afresh meanwhile, a sighting —
    // and try once more.
    await this.#files.remove(file, (c) => !isExpired(c, now.getTime()));
    return this.#files.create(jti, content);
  }

  async #prune(nowMs: number): Promise<void> {
    if (nowMs - this.#prunedAt < PRUNE_EVERY_MS) return;
    this.#prunedAt = nowMs;
    await this.#files.ready();
    for (const name of await readdir(this.#files.dir)) {
      if (!/^[0-9a-f]{64}$/.test(name)) continue;
      const file = join(this.#files.dir, name);
      if (isExpired(await this.#files.read(file), nowMs)) await this.#files.remove(file, (c) => !isExpired(c, nowMs));
    }
  }
}

/** Expired only when the file says so: a file being written (empty) or unreadable counts as live. */
function isExpired(content: string | null, nowMs: number): boolean {
  if (content === null) return true; // gone
  try {
    const at = (JSON.parse(content) as { expires_at_ms?: unknown }).expires_at_ms;
    return typeof at === "number" && at <= nowMs;
  } catch {
    return false;
  }
}

/**
 * A file per reserved key. A reservation is kept until released, also across a crash mid-work:
 * at-most-once wins over at-least-once (§13.4 step 3 — the redelivery is then dropped, and the
 * Hub's pull stays the source of truth, §8.3).
 */
export class FileDedupStore implements DedupStore {
  readonly #files: KeyDirectory;

  constructor(dir: string) {
    this.#files = new KeyDirectory(dir);
  }

  reserve(key: string): Promise<boolean> {
    return this.#files.create(key, JSON.stringify({ reserved_at: new Date().toISOString() }));
  }

  async release(key: string): Promise<void> {
    await this.#files.remove(this.#files.path(key));
  }

  async has(key: string): Promise<boolean> {
    await this.#files.ready();
    return (await this.#files.read(this.#files.path(key))) !== null;
  }
}

function isCode(e: unknown, code: string): boolean {
  return typeof e === "object" && e !== null && (e as { code?: unknown }).code === code;
}

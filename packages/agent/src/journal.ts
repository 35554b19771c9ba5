/**
 * The submit journal: the exact bytes of a submit, saved under its `idempotency_key` before the POST,
 * and the ack once it arrives. After a crash between the two, `Ma2hClient.replay(key)` re-sends the
 * saved bytes and gets the original ack back (§8.1). Rebuilding the envelope instead would change
 * `created_at`, which the §8.1 identical-payload comparison covers, and earn a `409`.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { SubmitAck } from "@ma2h/protocol/submit-ack";

export interface SubmitJournal {
  /** Persists the bytes about to be POSTed for `key` (before the request). */
  save(key: string, bytes: string): Promise<void>;
  /** The saved bytes for `key`, or null. */
  load(key: string): Promise<string | null>;
  /** Records the ack for `key` (after the 202). */
  complete(key: string, ack: SubmitAck): Promise<void>;
  /** Keys saved but never completed: the submits a crash may have left unanswered. */
  pending(): Promise<string[]>;
  /**
   * Whether `messageId` is the id of one of the acks recorded here (a push verifier's `journal`
   * option refuses answers to anything else). Optional for journals of your own.
   */
  sent?(messageId: string): Promise<boolean>;
}

interface Entry {
  key: string;
  bytes: string;
  ack?: SubmitAck;
}

export class MemorySubmitJournal implements SubmitJournal {
  readonly #entries = new Map<string, Entry>();

  async save(key: string, bytes: string): Promise<void> {
    this.#entries.set(key, { key, bytes });
  }
  async load(key: string): Promise<string | null> {
    return this.#entries.get(key)?.bytes ?? null;
  }
  async complete(key: string, ack: SubmitAck): Promise<void> {
    const entry = this.#entries.get(key);
    if (entry) entry.ack = ack;
  }
  async pending(): Promise<string[]> {
    return [...this.#entries.values()].filter((e) => e.ack === undefined).map((e) => e.key);
  }
  /** The recorded ack for `key`, or null. */
  async ack(key: string): Promise<SubmitAck | null> {
    return this.#entries.get(key)?.ack ?? null;
  }
  async sent(messageId: string): Promise<boolean> {
    for (const e of this.#entries.values()) if (e.ack?.id === messageId) return true;
    return false;
  }
}

/**
 * One file per key in `dir` (0700), named by the key's SHA-256 hex so any key is a safe file name,
 * holding `{key, bytes, ack?}` (0600: the bytes include the envelope's `state`). Every write goes to
 * a temporary file first and is renamed over the entry, so a crash never leaves a torn entry.
 * Each ack's message id is also indexed under `sent/` (an empty file named by the id's SHA-256) so
 * `sent(id)` is one lookup; an id missing there (a journal written before the index) is looked for
 * among the entries once and then indexed.
 */
export class FileSubmitJournal implements SubmitJournal {
  readonly #dir: string;
  #ready: Promise<void> | null = null;

  constructor(dir: string) {
    this.#dir = dir;
  }

  #mkdir(): Promise<void> {
    this.#ready ??= mkdir(this.#dir, { recursive: true, mode: 0o700 }).then(() => undefined);
    return this.#ready;
  }

  #path(key: string): string {
    return join(this.#dir, `${createHash("sha256").update(key, "utf8").digest("hex")}.json`);
  }

  async #write(entry: Entry): Promise<void> {
    await this.#mkdir();
    const target = this.#path(entry.key);
    const temp = `${target}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      await writeFile(temp, JSON.stringify(entry), { mode: 0o600, flag: "wx" });
      await rename(temp, target);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }

  async #read(path: string): Promise<Entry | null> {
    try {
      return JSON.parse(await readFile(path, "utf8")) as Entry;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw err;
    }
  }

  async save(key: string, bytes: string): Promise<void> {
    await this.#write({ key, bytes });
  }

  async load(key: string): Promise<string | null> {
    return (await this.#read(this.#path(key)))?.bytes ?? null;
  }

  async complete(key: string, ack: SubmitAck): Promise<void> {
    const entry = await this.#read(this.#path(key));
    if (!entry) return;
    await this.#write({ ...entry, ack });
    await this.#index(ack.id);
  }

  #sentPath(messageId: string): string {
    return join(this.#dir, "sent", createHash("sha256").update(messageId, "utf8").digest("hex"));
  }

  async #index(messageId: string): Promise<void> {
    await mkdir(join(this.#dir, "sent"), { recursive: true, mode: 0o700 });
    await writeFile(this.#sentPath(messageId), "", { mode: 0o600 });
  }

  async sent(messageId: string): Promise<boolean> {
    try {
      await stat(this.#sentPath(messageId));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    await this.#mkdir();
    for (const name of (await readdir(this.#dir)).filter((n) => /^[0-9a-f]{64}\.json$/.test(n))) {
      if ((await this.#read(join(this.#dir, name)))?.ack?.id !== messageId) continue;
      await this.#index(messageId);
      return true;
    }
    return false;
  }

  async pending(): Promise<string[]> {
    await this.#mkdir();
    const names = (await readdir(this.#dir)).filter((n) => /^[0-9a-f]{64}\.json$/.test(n));
    const out: string[] = [];
    for (const name of names) {
      const entry = await this.#read(join(this.#dir, name));
      if (entry && entry.ack === undefined) out.push(entry.key);
    }
    return out.sort();
  }

  /** The recorded ack for `key`, or null. */
  async ack(key: string): Promise<SubmitAck | null> {
    return (await this.#read(this.#path(key)))?.ack ?? null;
  }
}

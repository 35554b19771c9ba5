/**
 * Long-poll waiters (§8.2). One LISTEN connection per process receives the id of every message that
 * turns terminal, on commit, from any process; waiters are an in-memory map from message id to
 * callbacks, so thousands of held requests cost no database work. If the LISTEN connection drops,
 * every waiter is woken to re-read (a missed NOTIFY must never leave one hanging to its timeout
 * with a stale answer — it re-reads the row either way).
 */
import pg from "pg";
import { env } from "../env";
import { log } from "../log";
import { TERMINAL_CHANNEL } from "./channel";

type Wake = () => void;

class TerminalWaiters {
  private readonly waiters = new Map<string, Set<Wake>>();
  /** In-flight row reads per message id, shared by the long-polls of one process (see `shared`). */
  private readonly reads = new Map<string, Promise<unknown>>();
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private closed = false;

  /** Resolves once this process is listening, so a caller can register before re-reading. */
  ready(): Promise<void> {
    if (this.client || this.closed) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: env().DATABASE_URL });
    client.on("notification", (n) => {
      if (n.channel === TERMINAL_CHANNEL && n.payload) this.wake(n.payload);
    });
    client.on("error", (err) => {
      log.warn("listen connection lost", { error_name: err.name });
      this.dropClient(client);
    });
    client.on("end", () => this.dropClient(client));
    await client.connect();
    await client.query(`LISTEN ${TERMINAL_CHANNEL}`);
    this.client = client;
  }

  private dropClient(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    this.wakeAll();
    if (!this.closed && this.waiters.size > 0) {
      setTimeout(() => void this.ready().catch(() => {}), 500).unref();
    }
  }

  /** Registers a waiter; `promise` settles on wake, timeout or abort, `cancel` deregisters early. */
  wait(messageId: string, timeoutMs: number, signal?: AbortSignal): { promise: Promise<void>; cancel: () => void } {
    let done: () => void = () => {};
    const promise = new Promise<void>((resolve) => {
      let set = this.waiters.get(messageId);
      if (!set) this.waiters.set(messageId, (set = new Set()));
      done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        const current = this.waiters.get(messageId);
        current?.delete(done);
        if (current && current.size === 0) this.waiters.delete(messageId);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, timeoutMs));
      signal?.addEventListener("abort", done, { once: true });
      set.add(done);
    });
    return { promise, cancel: () => done() };
  }

  /**
   * One database read of a message for all the long-polls of this process that need it at once
   * (a NOTIFY waking a thousand waiters on one message costs one read, not a thousand). A read in
   * flight is joined only until the next wake for that id: `wake` drops it first, so every waiter
   * woken by a commit reads a row fetched after that commit. Only for waiters, which a later NOTIFY
   * corrects — a plain GET reads on its own, so it always sees the caller's own earlier writes.
   */
  shared<T>(messageId: string, read: () => Promise<T>): Promise<T> {
    const inflight = this.reads.get(messageId) as Promise<T> | undefined;
    if (inflight) return inflight;
    const p: Promise<T> = read().finally(() => {
      if (this.reads.get(messageId) === p) this.reads.delete(messageId);
    });
    this.reads.set(messageId, p);
    return p;
  }

  wake(messageId: string): void {
    this.reads.delete(messageId);
    const set = this.waiters.get(messageId);
    if (set) for (const fn of [...set]) fn();
  }

  wakeAll(): void {
    this.reads.clear();
    for (const set of [...this.waiters.values()]) for (const fn of [...set]) fn();
  }

  /** True once the process is shutting down: long-polls answer with what they have. */
  get closing(): boolean {
    return this.closed;
  }

  get size(): number {
    let n = 0;
    for (const set of this.waiters.values()) n += set.size;
    return n;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wakeAll();
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }
}

const KEY = Symbol.for("ma2h.waiters");
type Holder = { [KEY]?: TerminalWaiters };

/** The process-wide registry (kept on globalThis: Next bundles and the server share one process). */
export function terminalWaiters(): TerminalWaiters {
  const g = globalThis as Holder;
  return (g[KEY] ??= new TerminalWaiters());
}

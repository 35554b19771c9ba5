/**
 * Long-poll waiters (§8.2, and §8.7 parked drains under `mailboxWakeKey`). The process's one LISTEN
 * connection (lib/pubsub/listener.ts) hands over the key of every message that turns terminal, and
 * of every mailbox that gets a directive, on commit, from any process; waiters are an in-memory map
 * from key to callbacks, so thousands of held requests cost no database work. If the connection
 * drops, every waiter is woken to re-read (a missed NOTIFY must never leave one hanging to its
 * timeout with a stale answer — it re-reads the row either way).
 */
import { processWide } from "../process-wide";
import { TERMINAL_CHANNEL } from "../pubsub/channels";
import { isMailboxWakeKey } from "../pubsub/terminal";
import { notificationListener } from "../pubsub/listener";

type Wake = () => void;

class TerminalWaiters {
  private readonly waiters = new Map<string, Set<Wake>>();
  /** In-flight row reads per message id, shared by the long-polls of one process (see `shared`). */
  private readonly reads = new Map<string, Promise<unknown>>();
  private closed = false;
  private readonly listener = notificationListener();

  constructor() {
    this.listener.subscribe(TERMINAL_CHANNEL, { payload: (key) => this.wake(key), lost: () => this.wakeAll() });
  }

  /** Resolves once this process is listening, so a caller can register before re-reading. */
  ready(): Promise<void> {
    return this.closed ? Promise.resolve() : this.listener.ready();
  }

  /** Registers a waiter; `promise` settles on wake, timeout or abort, `cancel` deregisters early. */
  wait(messageId: string, timeoutMs: number, signal?: AbortSignal): { promise: Promise<void>; cancel: () => void } {
    let done: () => void = () => {};
    const promise = new Promise<void>((resolve) => {
      let set = this.waiters.get(messageId);
      if (!set) {
        set = new Set();
        this.waiters.set(messageId, set);
      }
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

  /** Parked requests by kind (metrics): §8.2 long-polls wait on a message id, §8.7 drains on a mailbox key. */
  counts(): { longPolls: number; drains: number } {
    let longPolls = 0;
    let drains = 0;
    for (const [key, set] of this.waiters) {
      if (isMailboxWakeKey(key)) drains += set.size;
      else longPolls += set.size;
    }
    return { longPolls, drains };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wakeAll();
    await this.listener.close();
  }
}

/** The process-wide registry (lib/process-wide.ts). */
export function terminalWaiters(): TerminalWaiters {
  return processWide("ma2h.waiters", () => new TerminalWaiters());
}

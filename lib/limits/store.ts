/**
 * Where held requests are counted so that every web process sees the same totals: Redis when
 * configured, else PostgreSQL (as the §8.6 submit counters, lib/rate-limit.ts). A process's counts
 * count only while its lease is alive; a process that dies without releasing stops counting when
 * its lease lapses (`LEASE_MS`), so a crash can never leak capacity for longer than that.
 */
/** A process's lease lasts this long; its heartbeat renews it every third of it. */
export const LEASE_MS = 30_000;

export interface HeldStore {
  /** Counts one more held request under `key` for `processId` unless the live total is at `cap`. */
  acquire(key: string, processId: string, cap: number): Promise<boolean>;
  /** Counts one fewer. */
  release(key: string, processId: string): Promise<void>;
  /**
   * Renews the process's lease, and keeps the `held` keys (those it holds now) from expiring.
   * Counts are only ever changed by `acquire` and `release` — increments and decrements, never
   * overwritten — so no beat can undo an acquire still in flight.
   */
  heartbeat(processId: string, held: readonly string[]): Promise<void>;
}

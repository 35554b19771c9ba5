/**
 * Held-request counts in PostgreSQL, when Redis is not configured: a row per key and web process
 * (`parked_counts`) and a lease per process (`process_leases`, renewed by its heartbeat). The live
 * total sums only rows whose process's lease is in the future, by the database's clock. An acquire
 * takes the key's advisory lock first, then checks and increments in one statement (its own
 * snapshot, taken after the lock), so concurrent acquires in any number of processes never overshoot.
 */
import { db } from "../db";
import {
  lockHeldKey,
  runAcquireHeld,
  runDropOldLeases,
  runDropOrphanCounts,
  runDropZeroCounts,
  runReleaseHeld,
  runRenewLease,
} from "./pg-store.sql";
import { type HeldStore, LEASE_MS } from "./store";

export function pgHeldStore(): HeldStore {
  return {
    async acquire(key, processId, cap) {
      const [, rows] = await db().$transaction([lockHeldKey(key), runAcquireHeld(key, processId, cap)]);
      return rows.length > 0;
    },
    async release(key, processId) {
      await runReleaseHeld(key, processId);
    },
    async heartbeat(processId, _held) {
      await db().$transaction([
        runRenewLease(processId, LEASE_MS),
        // Zero rows of this process, everything of processes without a live lease, old leases.
        runDropZeroCounts(processId),
        runDropOrphanCounts(),
        runDropOldLeases(),
      ]);
    },
  };
}

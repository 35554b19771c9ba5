/**
 * Held-request counts in PostgreSQL, when Redis is not configured: a row per key and web process
 * (`parked_counts`) and a lease per process (`process_leases`, renewed by its heartbeat). The live
 * total sums only rows whose process's lease is in the future, by the database's clock. An acquire
 * takes the key's advisory lock first, then checks and increments in one statement (its own
 * snapshot, taken after the lock), so concurrent acquires in any number of processes never overshoot.
 *
 * The lock serialises every acquire of a key across processes, and each waits for it holding a pooled
 * connection; a burst of a thousand parked waits on one agent, one transaction each, starved the
 * pool until transactions could not start (P2028, a 500). So a process sends one acquire per key at
 * a time, for every request that arrived meanwhile: one transaction counts as many as fit under
 * the cap, and the rest of that batch is refused together.
 */
import { db } from "../db";
import { processWide } from "../process-wide";
import {
  lockHeldKey,
  runAcquireHeldSlots,
  runDropOldLeases,
  runDropOrphanCounts,
  runDropZeroCounts,
  runReleaseHeld,
  runRenewLease,
} from "./pg-store.sql";
import { type HeldStore, LEASE_MS } from "./store";

export function pgHeldStore(): HeldStore {
  return {
    acquire(key, processId, cap) {
      return new Promise<boolean>((resolve, reject) => {
        const name = `${key}\u0000${processId}\u0000${cap}`;
        const batch = batches().get(name) ?? { waiting: [], sending: false };
        batches().set(name, batch);
        batch.waiting.push({ resolve, reject });
        if (!batch.sending) void send(name, batch, key, processId, cap);
      });
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

type Waiter = { resolve: (counted: boolean) => void; reject: (err: unknown) => void };
type Batch = { waiting: Waiter[]; sending: boolean };

/** A batch's size bound: one statement's worth, whatever the burst. */
const MOST_PER_ACQUIRE = 500;

/** The requests waiting to be counted, per key, process and cap: one acquire in flight for each. */
const batches = () => processWide("ma2h.limits.pg-acquire-batches", () => new Map<string, Batch>());

async function send(name: string, batch: Batch, key: string, processId: string, cap: number): Promise<void> {
  batch.sending = true;
  try {
    while (batch.waiting.length > 0) {
      const these = batch.waiting.splice(0, MOST_PER_ACQUIRE);
      try {
        const [, rows] = await db().$transaction([
          lockHeldKey(key),
          runAcquireHeldSlots(key, processId, cap, these.length),
        ]);
        const counted = Number(rows[0]?.n ?? 0);
        // The first come are counted: the order requests arrived in is the order they are served.
        for (const [i, w] of these.entries()) w.resolve(i < counted);
      } catch (err) {
        for (const w of these) w.reject(err);
      }
    }
  } finally {
    batch.sending = false;
    if (batches().get(name) === batch) batches().delete(name);
  }
}

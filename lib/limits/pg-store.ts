/**
 * Held-request counts in PostgreSQL, when Redis is not configured: a row per key and web process
 * (`parked_counts`) and a lease per process (`process_leases`, renewed by its heartbeat). The live
 * total sums only rows whose process's lease is in the future, by the database's clock. An acquire
 * takes the key's advisory lock first, then checks and increments in one statement (its own
 * snapshot, taken after the lock), so concurrent acquires in any number of processes never overshoot.
 */
import { db } from "../db";
import { type HeldStore, LEASE_MS } from "./store";

export function pgHeldStore(): HeldStore {
  return {
    async acquire(key, processId, cap) {
      const [, rows] = await db().$transaction([
        db().$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`held:${key}`}))`,
        db().$queryRaw<{ count: number }[]>`
          INSERT INTO parked_counts (key, process_id, count)
          SELECT ${key}, ${processId}, 1
           WHERE (SELECT COALESCE(SUM(c.count), 0)
                    FROM parked_counts c
                    JOIN process_leases l ON l.process_id = c.process_id AND l.alive_until > now()
                   WHERE c.key = ${key}) < ${cap}
          ON CONFLICT (key, process_id) DO UPDATE SET count = parked_counts.count + 1
          RETURNING count`,
      ]);
      return rows.length > 0;
    },
    async release(key, processId) {
      await db().$executeRaw`
        UPDATE parked_counts SET count = GREATEST(count - 1, 0) WHERE key = ${key} AND process_id = ${processId}`;
    },
    async heartbeat(processId, _held) {
      await db().$transaction([
        db().$executeRaw`
          INSERT INTO process_leases (process_id, alive_until)
          VALUES (${processId}, now() + ${LEASE_MS} * interval '1 millisecond')
          ON CONFLICT (process_id) DO UPDATE SET alive_until = EXCLUDED.alive_until`,
        // Zero rows of this process, everything of processes without a live lease, old leases.
        db().$executeRaw`DELETE FROM parked_counts WHERE process_id = ${processId} AND count <= 0`,
        db().$executeRaw`
          DELETE FROM parked_counts c
           WHERE NOT EXISTS (SELECT 1 FROM process_leases l
                              WHERE l.process_id = c.process_id AND l.alive_until > now())`,
        db().$executeRaw`DELETE FROM process_leases WHERE alive_until < now() - interval '10 minutes'`,
      ]);
    },
  };
}

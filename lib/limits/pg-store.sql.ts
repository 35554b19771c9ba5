/**
 * The statements behind lib/limits/pg-store.ts. Each runner returns Prisma's lazy promise, not an
 * async function's: the store sends them as one batch transaction (`$transaction([...])`).
 */
import { db } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";

export const heldKeyLock = statement(
  "take a held-request key's advisory lock for the transaction",
  (key: string) => Prisma.sql`SELECT pg_advisory_xact_lock(hashtext(${`held:${key}`}))`,
  [["agent:agt_row_sample"]],
);

export const lockHeldKey = (key: string) => db().$executeRaw(heldKeyLock.sql(key));

/**
 * Its own snapshot, taken after the key's lock: concurrent acquires never overshoot. Counts up to
 * `wanted` held requests at once — as many as fit under the cap — and returns how many it counted.
 */
export const acquireHeldSlots = statement(
  "count up to n held requests for a key and process, as many as fit under the live total's cap",
  (key: string, processId: string, cap: number, wanted: number) => Prisma.sql`
          WITH live AS (
                 SELECT COALESCE(SUM(c.count), 0)::int AS total
                   FROM parked_counts c
                   JOIN process_leases l ON l.process_id = c.process_id AND l.alive_until > now()
                  WHERE c.key = ${key}),
               granted AS (SELECT LEAST(${wanted}::int, GREATEST(${cap}::int - total, 0)) AS n FROM live),
               counted AS (
                 INSERT INTO parked_counts (key, process_id, count)
                 SELECT ${key}, ${processId}, n FROM granted WHERE n > 0
                 ON CONFLICT (key, process_id) DO UPDATE SET count = parked_counts.count + EXCLUDED.count
                 RETURNING 1)
          SELECT n FROM granted`,
  [["agent:agt_row_sample", "proc_sample", 10, 3]],
);

/** One row: how many of the `wanted` were counted (0 when the cap is reached). */
export const runAcquireHeldSlots = (key: string, processId: string, cap: number, wanted: number) =>
  db().$queryRaw<{ n: number }[]>(acquireHeldSlots.sql(key, processId, cap, wanted));

export const releaseHeld = statement(
  "uncount one held request of a key and process",
  (key: string, processId: string) => Prisma.sql`
        UPDATE parked_counts SET count = GREATEST(count - 1, 0) WHERE key = ${key} AND process_id = ${processId}`,
  [["agent:agt_row_sample", "proc_sample"]],
);

export const runReleaseHeld = (key: string, processId: string) => db().$executeRaw(releaseHeld.sql(key, processId));

export const renewLease = statement(
  "renew a process's lease",
  (processId: string, leaseMs: number) => Prisma.sql`
          INSERT INTO process_leases (process_id, alive_until)
          VALUES (${processId}, now() + ${leaseMs} * interval '1 millisecond')
          ON CONFLICT (process_id) DO UPDATE SET alive_until = EXCLUDED.alive_until`,
  [["proc_sample", 15_000]],
);

export const runRenewLease = (processId: string, leaseMs: number) =>
  db().$executeRaw(renewLease.sql(processId, leaseMs));

export const dropZeroCounts = statement(
  "drop a process's zero counts",
  (processId: string) => Prisma.sql`DELETE FROM parked_counts WHERE process_id = ${processId} AND count <= 0`,
  [["proc_sample"]],
);

export const runDropZeroCounts = (processId: string) => db().$executeRaw(dropZeroCounts.sql(processId));

export const dropOrphanCounts = statement(
  "drop the counts of processes without a live lease",
  () => Prisma.sql`
          DELETE FROM parked_counts c
           WHERE NOT EXISTS (SELECT 1 FROM process_leases l
                              WHERE l.process_id = c.process_id AND l.alive_until > now())`,
  [[]],
);

export const runDropOrphanCounts = () => db().$executeRaw(dropOrphanCounts.sql());

export const dropOldLeases = statement(
  "drop leases expired for ten minutes",
  () => Prisma.sql`DELETE FROM process_leases WHERE alive_until < now() - interval '10 minutes'`,
  [[]],
);

export const runDropOldLeases = () => db().$executeRaw(dropOldLeases.sql());

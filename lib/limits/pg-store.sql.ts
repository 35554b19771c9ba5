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

/** Its own snapshot, taken after the key's lock: concurrent acquires never overshoot. */
export const acquireHeld = statement(
  "count one held request for a key and process, unless the live total is at the cap",
  (key: string, processId: string, cap: number) => Prisma.sql`
          INSERT INTO parked_counts (key, process_id, count)
          SELECT ${key}, ${processId}, 1
           WHERE (SELECT COALESCE(SUM(c.count), 0)
                    FROM parked_counts c
                    JOIN process_leases l ON l.process_id = c.process_id AND l.alive_until > now()
                   WHERE c.key = ${key}) < ${cap}
          ON CONFLICT (key, process_id) DO UPDATE SET count = parked_counts.count + 1
          RETURNING count`,
  [["agent:agt_row_sample", "proc_sample", 10]],
);

/** A row when counted, none when the cap is reached. */
export const runAcquireHeld = (key: string, processId: string, cap: number) =>
  db().$queryRaw<{ count: number }[]>(acquireHeld.sql(key, processId, cap));

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

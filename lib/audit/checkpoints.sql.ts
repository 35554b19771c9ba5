/** The statements behind lib/audit/checkpoints.ts. */
import { db, type Tx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";

const KEY_LOCK = 0x6d61636b; // "mack"

export const auditKeyLock = statement(
  "take the audit signing key's creation lock for the transaction",
  () => Prisma.sql`SELECT pg_advisory_xact_lock(${KEY_LOCK})`,
  [[]],
);

/** Processes starting together make one key: the second waits here, then finds the first's. */
export async function lockAuditKeyCreation(tx: Tx): Promise<void> {
  await tx.$executeRaw(auditKeyLock.sql());
}

export const auditOwnership = statement(
  "whether this connection's role owns audit_events (or is a superuser)",
  () => Prisma.sql`
    SELECT (r.rolsuper OR pg_catalog.pg_has_role(current_user, c.relowner, 'MEMBER')) AS owner
      FROM pg_catalog.pg_class c, pg_catalog.pg_roles r
     WHERE c.oid = 'public.audit_events'::pg_catalog.regclass AND r.rolname = current_user`,
  [[]],
);

export async function readAuditOwnership(): Promise<boolean> {
  const rows = await db().$queryRaw<{ owner: boolean }[]>(auditOwnership.sql());
  return rows[0]?.owner === true;
}

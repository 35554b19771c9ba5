/**
 * The statement behind lib/sealed/rotate.ts, on its client (node-postgres). The tag is Prisma's from
 * @prisma/client-runtime-utils, as in ./rows.sql.ts: the CLI loads no Prisma client for it.
 */
import { sql } from "@prisma/client-runtime-utils";
import { statement } from "../sql-statement";
import { MIGRATION_LOCK } from "./catalogue";
import type { SqlClient } from "./rows.sql";

/** The migration runner's lock: a rotation never interleaves with a migration or the start-up re-seal. */
export const migrationLockForTransaction = statement(
  "take the migration lock for the transaction",
  () => sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`,
  [[]],
);

export async function lockMigrationsForTransaction(client: SqlClient): Promise<void> {
  const q = migrationLockForTransaction.sql();
  await client.query(q.text, q.values);
}

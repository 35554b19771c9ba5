/**
 * The migration runner's own statements (server/migrate.ts), on its lock's node-postgres client. A
 * migration file's content is not among them: it is data the runner hands over whole, not SQL of
 * ours, so it has no statement here and is not planned (the migrations are what the plans run on).
 * The tag is Prisma's from @prisma/client-runtime-utils (what `Prisma.sql` re-exports): the runner
 * and the hub's supervisor never load the Prisma client, and would pay a third of a second for it.
 */
import { sql } from "@prisma/client-runtime-utils";
import type pg from "pg";
import { MIGRATION_LOCK } from "../lib/sealed/catalogue";
import { statement } from "../lib/sql-statement";

/** Session-scoped: held across the engine's own connections until the deploy lets go. */
export const deployLock = statement(
  "take the migration lock for the session",
  () => sql`SELECT pg_advisory_lock(${MIGRATION_LOCK})`,
  [[]],
);

export const deployUnlock = statement(
  "let go of the migration lock",
  () => sql`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`,
  [[]],
);

export async function takeDeployLock(client: pg.Client): Promise<void> {
  const q = deployLock.sql();
  await client.query(q.text, q.values);
}

export async function releaseDeployLock(client: pg.Client): Promise<void> {
  const q = deployUnlock.sql();
  await client.query(q.text, q.values);
}

/**
 * A migration file, whole, in PostgreSQL's simple-query protocol, which runs a multi-statement script
 * as sent (dollar-quoted PL/pgSQL bodies included).
 */
export async function runMigrationScript(
  client: { query(text: string): Promise<unknown> },
  script: string,
): Promise<void> {
  await client.query(script);
}

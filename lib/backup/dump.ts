/**
 * Backup and restore of the Hub's database (`ma2h-hub backup <file>`, `ma2h-hub restore <file>`;
 * docs/DEPLOYMENT.md, "Backups"): PostgreSQL's own pg_dump and pg_restore, with the flags that make
 * a dump of a running Hub restorable into a new database.
 *
 * - One consistent snapshot (pg_dump's single repeatable-read transaction), in the custom format
 *   (compressed; pg_restore reads it).
 * - Without the `bullmq` schema: the PostgreSQL queue backend's jobs are timers the worker rebuilds
 *   from the Hub's rows at start (expiry and push sweeps), as it does after losing Redis; restoring
 *   them too would only replay stale attempts.
 * - Restored without owners and grants (`--no-owner --no-privileges`): the restoring role owns
 *   everything, as the migrating role does; re-apply scripts/hub-role.sql for a separate Hub role.
 *   In one transaction (`--single-transaction --exit-on-error`): a failed restore leaves the target
 *   as empty as it was.
 * - Into an empty database only: restoring over a live Hub's tables would merge two histories.
 *
 * The connection comes from DATABASE_URL, passed to the tools as PG* environment variables, so the
 * password never appears in a process list.
 */
import { execFile } from "node:child_process";
import { stat } from "node:fs/promises";
import { HubError } from "@ma2h/protocol/errors";
import { countHubTables } from "./restore.sql";

/** The queue backend's schema (BullMQ's default), left out of every dump. */
export const QUEUE_SCHEMA = "bullmq";

/** DATABASE_URL as libpq's environment (host, port, user, password, database, sslmode). */
export function libpqEnv(databaseUrl: string): Record<string, string> {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    throw new HubError("validation_error", "DATABASE_URL is not a postgresql:// URL");
  }
  if (url.protocol !== "postgresql:" && url.protocol !== "postgres:")
    throw new HubError("validation_error", "DATABASE_URL is not a postgresql:// URL");
  const env: Record<string, string> = {};
  const host = url.searchParams.get("host") ?? decodeURIComponent(url.hostname);
  if (host) env.PGHOST = host.replace(/^\[(.*)\]$/, "$1");
  if (url.port) env.PGPORT = url.port;
  if (url.username) env.PGUSER = decodeURIComponent(url.username);
  if (url.password) env.PGPASSWORD = decodeURIComponent(url.password);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ""));
  if (!database) throw new HubError("validation_error", "DATABASE_URL names no database");
  env.PGDATABASE = database;
  const sslmode = url.searchParams.get("sslmode");
  if (sslmode) env.PGSSLMODE = sslmode;
  return env;
}

function run(tool: string, args: string[], databaseUrl: string): Promise<void> {
  const env = { ...process.env, ...libpqEnv(databaseUrl) };
  delete env.PGSERVICE; // only DATABASE_URL decides where
  return new Promise((resolve, reject) => {
    execFile(tool, args, { env, maxBuffer: 16 * 1024 * 1024 }, (err, _stdout, stderr) => {
      if (!err) return resolve();
      const missing = (err as NodeJS.ErrnoException).code === "ENOENT";
      reject(
        new Error(
          missing
            ? `${tool} not found: install PostgreSQL's client tools (Debian: postgresql-client) of the server's major version or newer`
            : `${tool} failed: ${stderr.trim().split("\n").slice(-3).join(" ") || err.message}`,
        ),
      );
    });
  });
}

export interface BackupResult {
  file: string;
  bytes: number;
}

/** pg_dump of the database at `databaseUrl` into `file` (custom format, no queue schema). */
export async function backupDatabase(databaseUrl: string, file: string): Promise<BackupResult> {
  await run("pg_dump", ["--format=custom", `--exclude-schema=${QUEUE_SCHEMA}`, "--file", file], databaseUrl);
  return { file, bytes: (await stat(file)).size };
}

export interface RestoreResult {
  file: string;
  tables: number;
}

/** pg_restore of `file` into the empty database at `databaseUrl`, in one transaction. */
export async function restoreDatabase(databaseUrl: string, file: string): Promise<RestoreResult> {
  try {
    await stat(file);
  } catch {
    throw new HubError("validation_error", `cannot read ${file}`);
  }
  if ((await countHubTables()) > 0)
    throw new HubError(
      "validation_error",
      "the database already has tables: restore into a new, empty database (createdb), then point DATABASE_URL at it",
    );
  await run(
    "pg_restore",
    [
      "--no-owner",
      "--no-privileges",
      "--single-transaction",
      "--exit-on-error",
      "--dbname",
      libpqEnv(databaseUrl).PGDATABASE!,
      file,
    ],
    databaseUrl,
  );
  return { file, tables: await countHubTables() };
}

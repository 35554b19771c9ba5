/**
 * A fresh PostgreSQL database per test file (real PostgreSQL, no mocks), migrated
 * with the same wasm-engine path as `npm run db:migrate`. The admin URL is TEST_PG_URL or the local
 * superuser over trust auth.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { deployMigrations } from "../../server/migrate";
import { repoRoot } from "./hub";

const ADMIN_URL = process.env.TEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

function withDatabase(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A migrated template per migration set, made once (under an advisory lock, so parallel files and
 * processes agree) and cloned per test file: cloning is near-instant, migrating is not.
 */
async function templateDatabase(): Promise<string> {
  const dir = join(repoRoot, "prisma/migrations");
  const hash = createHash("sha256");
  for (const name of readdirSync(dir).sort()) {
    const file = join(dir, name, "migration.sql");
    if (existsSync(file)) hash.update(name).update(readFileSync(file));
  }
  const template = `ma2h_t_tpl_${hash.digest("hex").slice(0, 12)}`;
  await admin(async (c) => {
    await c.query("SELECT pg_advisory_lock(7277001)");
    try {
      const found = await c.query("SELECT 1 FROM pg_database WHERE datname = $1", [template]);
      if (found.rowCount) return;
      const staging = `${template}_staging`;
      await c.query(`DROP DATABASE IF EXISTS ${staging} WITH (FORCE)`);
      await c.query(`CREATE DATABASE ${staging}`);
      await deployMigrations(withDatabase(ADMIN_URL, staging));
      await c.query(`ALTER DATABASE ${staging} RENAME TO ${template}`);
    } finally {
      await c.query("SELECT pg_advisory_unlock(7277001)");
    }
  });
  return template;
}

export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const template = await templateDatabase();
  const name = `ma2h_t_${randomBytes(6).toString("hex")}`;
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${template}`));
  const url = withDatabase(ADMIN_URL, name);
  return {
    url,
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/**
 * A new, empty database (no migrations applied): for what must migrate or restore it itself (the
 * compose twin's migration service, a restore target, an older release's migrations).
 */
export async function createEmptyDatabase(): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `ma2h_t_${randomBytes(6).toString("hex")}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  return {
    url: withDatabase(ADMIN_URL, name),
    name,
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

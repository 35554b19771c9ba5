/**
 * A fresh PostgreSQL database per test file (real PostgreSQL, no mocks — issue #2 item 9), migrated
 * with the same wasm-engine path as `npm run db:migrate`. The admin URL is TEST_PG_URL or the local
 * superuser over trust auth.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { deployMigrations } from "../../scripts/migrate";

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

export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `ma2h_t_${randomBytes(6).toString("hex")}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = withDatabase(ADMIN_URL, name);
  try {
    await deployMigrations(url);
  } catch (err) {
    await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    throw err;
  }
  return {
    url,
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/**
 * Prisma migrations without the native schema engine (it cannot be downloaded here): the wasm engine
 * behind a driver adapter. `deploy` applies prisma/migrations/* to DATABASE_URL (idempotent, safe to
 * race: a PostgreSQL advisory lock serialises concurrent deployers). `dev <name>` writes the next
 * migration by diffing the schema against a throwaway in-memory PGlite that has the existing
 * migrations applied. The files stay standard Prisma migrations, so `prisma migrate deploy` works too.
 * After the SQL migrations, still under the lock, sealed values in format v1 (the older one) are
 * re-sealed bound to their purpose and row (lib/sealed/reseal.ts): a SQL migration has no key.
 * The command line (`npm run db:migrate`, `npm run db:migration <name>`) is server/migrate-cli.ts.
 */
import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import { MIGRATION_LOCK } from "../lib/sealed/catalogue";
import { type ResealReport, resealLegacyValues } from "../lib/sealed/reseal";
import { root } from "../bin/launcher.mjs";

const migrationsDir = join(root, "prisma/migrations");
const schemaPath = join(root, "prisma/schema.prisma");
const filters = { externalTables: [], externalEnums: [] };
const DEPLOY_LOCK = MIGRATION_LOCK;

type Engine = Awaited<ReturnType<typeof import("@prisma/schema-engine-wasm/schema_engine_bg").SchemaEngine.new>>;

async function engineFor(factory: unknown): Promise<Engine> {
  const rt = await import("@prisma/schema-engine-wasm/schema_engine_bg");
  const require = createRequire(join(root, "package.json"));
  const wasmPath = join(
    dirname(require.resolve("@prisma/schema-engine-wasm/schema_engine_bg")),
    "schema_engine_bg.wasm",
  );
  const instance = new WebAssembly.Instance(new WebAssembly.Module(await readFile(wasmPath)), {
    "./schema_engine_bg.js": rt as unknown as WebAssembly.ModuleImports,
  });
  rt.__wbg_set_wasm(instance.exports);
  (instance.exports as { __wbindgen_start: () => void }).__wbindgen_start();
  return rt.SchemaEngine.new(
    { datamodels: undefined },
    () => {},
    bindMigrationAwareSqlAdapterFactory(factory as never),
  );
}

async function migrationsList() {
  await mkdir(migrationsDir, { recursive: true });
  const entries = (await readdir(migrationsDir, { withFileTypes: true }))
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const lockPath = join(migrationsDir, "migration_lock.toml");
  const lockContent = await readFile(lockPath, "utf8").catch(() => null);
  return {
    baseDir: migrationsDir,
    lockfile: { path: "migration_lock.toml", content: lockContent },
    shadowDbInitScript: "",
    migrationDirectories: await Promise.all(
      entries.map(async (name) => ({
        path: name,
        migrationFile: {
          path: "migration.sql",
          content: { tag: "ok" as const, value: await readFile(join(migrationsDir, name, "migration.sql"), "utf8") },
        },
      })),
    ),
  };
}

/**
 * The pg adapter's `executeScript` splits a script on every `;`, which breaks dollar-quoted bodies
 * (PL/pgSQL functions). PostgreSQL's simple-query protocol runs a multi-statement script as sent, so
 * the deployer hands each migration over whole.
 */
class WholeScriptPg extends PrismaPg {
  override async connect() {
    const adapter = await super.connect();
    const client = (adapter as unknown as { client: { query(sql: string): Promise<unknown> } }).client;
    adapter.executeScript = async (script: string) => {
      await client.query(script);
    };
    return adapter;
  }
}

/** `onReseal` hears what the re-seal step did (for the caller's log; nothing secret in it). */
export async function deployMigrations(
  connectionString: string,
  onReseal: (report: ResealReport) => void = () => {},
): Promise<string[]> {
  const lock = new pg.Client({ connectionString });
  await lock.connect();
  try {
    await lock.query("SELECT pg_advisory_lock($1)", [DEPLOY_LOCK]);
    // Our own pool, so no connection outlives the deploy (a template database must be idle).
    const pool = new pg.Pool({ connectionString, max: 2 });
    try {
      const engine = await engineFor(new WholeScriptPg(pool));
      const out = await engine.applyMigrations({ migrationsList: await migrationsList(), filters });
      engine.free();
      // On the lock's own connection, so it is serialised with other deployers and rotations.
      onReseal(await resealLegacyValues(lock));
      return out.appliedMigrationNames;
    } finally {
      await pool.end();
    }
  } finally {
    await lock.query("SELECT pg_advisory_unlock($1)", [DEPLOY_LOCK]).catch(() => {});
    await lock.end();
  }
}

export async function createMigration(name: string): Promise<void> {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error("migration name must match [a-z0-9_]+");
  const { PGlite } = await import("@electric-sql/pglite");
  const { PrismaPGlite } = await import("pglite-prisma-adapter");
  const shadow = new PGlite();
  const engine = await engineFor(new PrismaPGlite(shadow));
  await engine.applyMigrations({ migrationsList: await migrationsList(), filters });
  const files = [{ path: schemaPath, content: await readFile(schemaPath, "utf8") }];
  const diff = await engine.diff({
    from: { tag: "schemaDatasource", files, configDir: root },
    to: { tag: "schemaDatamodel", files },
    script: true,
    exitCode: true,
    filters,
  });
  if (diff.exitCode === 0 || !diff.stdout?.trim()) {
    console.error("No schema changes: no migration written.");
    return;
  }
  const stamp = new Date().toISOString().replace(/[-:T]/g, "").slice(0, 14);
  const dir = join(migrationsDir, `${stamp}_${name}`);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "migration.sql"), diff.stdout);
  const lockPath = join(migrationsDir, "migration_lock.toml");
  await writeFile(lockPath, 'provider = "postgresql"\n', { flag: "wx" }).catch(() => {});
  console.error(`Wrote ${dir}/migration.sql`);
}

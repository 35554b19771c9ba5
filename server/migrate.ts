/**
 * Prisma migrations without the native schema engine (it cannot be downloaded here): the wasm engine
 * behind a driver adapter. `deploy` applies prisma/migrations/* to DATABASE_URL (idempotent, safe to
 * race: a PostgreSQL advisory lock serialises concurrent deployers). `dev <name>` writes the next
 * migration by diffing the schema against a throwaway in-memory PGlite that has the existing
 * migrations applied; `check` makes the same diff and fails when it is not empty (CI). The files stay
 * standard Prisma migrations, so `prisma migrate deploy` works too. After the SQL migrations, still under the lock, sealed values in format v1 (the older one) are
 * re-sealed bound to their purpose and row (lib/sealed/reseal.ts): a SQL migration has no key.
 * The command line (`npm run db:migrate`, `npm run db:migration <name>`, `npm run db:check`) is
 * server/migrate-cli.ts.
 */
import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import { type ResealReport, resealLegacyValues } from "../lib/sealed/reseal";
import { root } from "../bin/launcher.mjs";
import { releaseDeployLock, runMigrationScript, takeDeployLock } from "./migrate.sql";

const migrationsDir = join(root, "prisma/migrations");
const schemaPath = join(root, "prisma/schema.prisma");
const filters = { externalTables: [], externalEnums: [] };

type Engine = Awaited<ReturnType<typeof import("@prisma/schema-engine-wasm/schema_engine_bg").SchemaEngine.new>>;

type EngineModule = typeof import("@prisma/schema-engine-wasm/schema_engine_bg");

/**
 * The wasm module, instantiated once per process: its JavaScript glue keeps views of the instance's
 * memory at module level, so a second instance behind the same glue reads through stale views and
 * panics (a deploy and a drift check in one process, two checks in one test).
 */
let engineModule: Promise<EngineModule> | null = null;

async function instantiateEngine(): Promise<EngineModule> {
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
  return rt;
}

async function engineFor(factory: unknown): Promise<Engine> {
  engineModule ??= instantiateEngine().catch((err: unknown) => {
    engineModule = null;
    throw err;
  });
  const rt = await engineModule;
  return rt.SchemaEngine.new(
    { datamodels: undefined },
    () => {},
    bindMigrationAwareSqlAdapterFactory(factory as never),
  );
}

async function migrationsList(dir = migrationsDir) {
  await mkdir(dir, { recursive: true });
  const entries = (await readdir(dir, { withFileTypes: true }))
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const lockPath = join(dir, "migration_lock.toml");
  const lockContent = await readFile(lockPath, "utf8").catch(() => null);
  return {
    baseDir: dir,
    lockfile: { path: "migration_lock.toml", content: lockContent },
    shadowDbInitScript: "",
    migrationDirectories: await Promise.all(
      entries.map(async (name) => ({
        path: name,
        migrationFile: {
          path: "migration.sql",
          content: { tag: "ok" as const, value: await readFile(join(dir, name, "migration.sql"), "utf8") },
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
    adapter.executeScript = (script: string) => runMigrationScript(client, script);
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
    await takeDeployLock(lock);
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
    await releaseDeployLock(lock).catch(() => {});
    await lock.end();
  }
}

/**
 * What the schema has that the migrations do not make, as the SQL of the migration that would add
 * it: the existing migrations applied to a throwaway in-memory PGlite, diffed against the schema
 * (what `migrate dev` writes, and what `migrate check` fails on). Empty when they agree. Writes nothing.
 */
export async function schemaDrift(schema = schemaPath, migrations = migrationsDir): Promise<string> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { PrismaPGlite } = await import("pglite-prisma-adapter");
  const shadow = new PGlite();
  const engine = await engineFor(new PrismaPGlite(shadow));
  try {
    await engine.applyMigrations({ migrationsList: await migrationsList(migrations), filters });
    const files = [{ path: schema, content: await readFile(schema, "utf8") }];
    const diff = await engine.diff({
      from: { tag: "schemaDatasource", files, configDir: root },
      to: { tag: "schemaDatamodel", files },
      script: true,
      exitCode: true,
      filters,
    });
    return diff.exitCode === 0 || !diff.stdout?.trim() ? "" : diff.stdout;
  } finally {
    engine.free();
    await shadow.close();
  }
}

/**
 * `migrate check` (`npm run db:check`, a CI step): whether the migrations make what the schema
 * describes, and the message that says so — on a disagreement, the SQL of the migration missing.
 */
export async function checkMigrations(schema = schemaPath): Promise<{ agree: boolean; message: string }> {
  const drift = await schemaDrift(resolve(schema));
  const name = relative(root, schema);
  if (!drift) return { agree: true, message: `${name} and prisma/migrations/ agree.` };
  return {
    agree: false,
    message:
      `${name} and prisma/migrations/ disagree: the migrations do not make the database the schema describes.\n` +
      "Write the missing migration with `npm run db:migration -- <name>` (or undo the schema edit). It would hold:\n\n" +
      drift.trim(),
  };
}

export async function createMigration(name: string): Promise<void> {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error("migration name must match [a-z0-9_]+");
  const drift = await schemaDrift();
  if (!drift) {
    console.error("No schema changes: no migration written.");
    return;
  }
  const stamp = new Date().toISOString().replace(/[-:T]/g, "").slice(0, 14);
  const dir = join(migrationsDir, `${stamp}_${name}`);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "migration.sql"), drift);
  const lockPath = join(migrationsDir, "migration_lock.toml");
  await writeFile(lockPath, 'provider = "postgresql"\n', { flag: "wx" }).catch(() => {});
  console.error(`Wrote ${dir}/migration.sql`);
}

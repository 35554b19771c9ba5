/**
 * `npm run db:migrate` (`deploy`), `npm run db:migration <name>` (`dev <name>`) and `npm run db:check`
 * (`check [<schema.prisma>]`): the command line of server/migrate.ts, an entry point of its own so
 * that the hub and the CLI, which bundle server/migrate.ts, never run it.
 */
import { checkMigrations, createMigration, deployMigrations } from "./migrate";

async function main(): Promise<void> {
  const [cmd, arg] = process.argv.slice(2);
  if (cmd === "deploy") {
    const url = process.env.DATABASE_URL;
    if (!url) throw new Error("DATABASE_URL is required");
    const applied = await deployMigrations(url, (r) => {
      if (r.resealed) console.error(`Re-sealed ${r.resealed} value(s) bound to their purpose and row.`);
      for (const where of r.unopenable)
        console.error(`Not re-sealed (does not open under the current secret; re-enter it): ${where}`);
    });
    console.error(applied.length ? `Applied: ${applied.join(", ")}` : "Database is up to date.");
  } else if (cmd === "dev" && arg) {
    await createMigration(arg);
  } else if (cmd === "check") {
    // CI's guard: a schema edited without its migration (or a migration without its schema edit)
    // fails here, not in the first test that reaches the column. Writes nothing.
    const { agree, message } = await checkMigrations(arg);
    console.error(message);
    if (!agree) process.exitCode = 1;
  } else {
    console.error("usage: node bin/run.mjs migrate deploy | dev <name> | check [<schema.prisma>]");
    process.exitCode = 2;
  }
}

// Exit once done: the schema engine (WebAssembly) leaves a 10 s timer behind it, which would keep the
// process alive that long after the work is over (every `npm run db:migrate`, every deploy step).
main().then(
  () => process.exit(),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);

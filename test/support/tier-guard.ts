/**
 * The setup file of the `unit` and `db` vitest projects (vitest.config.ts): what the tier may not use
 * fails at once, with the reason, instead of quietly working — so test/support/tiers.mjs cannot sort a
 * file lower than it belongs. `unit` has no database (its URLs point at a closed port) and neither
 * tier may start a child process (the child_process functions throw).
 */
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";

const tier = process.env.MA2H_TEST_TIER;

if (tier === "unit") {
  // Port 9 (discard) on loopback: nothing listens, so a connection is refused at once.
  const nowhere = "postgresql://postgres@127.0.0.1:9/the_unit_tier_has_no_database";
  process.env.DATABASE_URL = nowhere;
  process.env.TEST_PG_URL = nowhere;
}

if (tier === "unit" || tier === "db") {
  const refuse = (name: string) => () => {
    throw new Error(
      `${name}() in the ${tier} tier: a test file that starts a child process belongs in the process tier (test/support/tiers.mjs)`,
    );
  };
  for (const name of ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"] as const)
    (childProcess as unknown as Record<string, unknown>)[name] = refuse(name);
  syncBuiltinESMExports();
}

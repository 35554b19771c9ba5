// The three tiers of the vitest suite (CONTRIBUTING.md, "Tests"), decided by what a file uses.
// Plain JavaScript (types in tiers.d.mts): vitest.config.ts imports it before anything compiles.
// - `process`: it starts Hub processes or other children — it imports node:child_process, or calls a
//   helper that starts one (startHub, startPair, startWorker, the CLI's `runCli` or a file's `cli`,
//   watchProcess, the openssl helpers), or `useHubFixture` with a server (its default is one web
//   process); `cliInProcess` runs the CLI's command line in the test process, starting nothing;
// - `db`: it opens the real PostgreSQL (a test database, provisioning, lib/db) and starts nothing;
// - `unit`: neither: pure logic, file reads, in-memory fakes.
// A line `// tier: process` (or db) in a file overrides the scan, for a child the scan cannot see.
// vitest.config.ts gives each tier a project; test/support/tier-guard.ts makes what a tier may not
// use fail, so no file can be sorted lower than it belongs and still pass.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const STARTS_PROCESSES =
  /\b(startHub|startPair|startWorker|cli|runCli|watchProcess|makeSelfSigned|makeTestPki|spawn|spawnSync|execFile|execFileSync|fork)\(|from "node:child_process"/;
const FIXTURE_CALL = /useHubFixture\(([^)]*)\)/gs;
const USES_DATABASE =
  /\b(useTestDatabase|createTestDatabase|provisionAccount|useDatabase|useHubFixture)\(|new pg\.(Client|Pool)\(|from "(@\/lib|\.\.?(\/\.\.)*)\/db"|from "\.\.?\/support\/(provision|test-database|database)"/;
const OVERRIDE = /^\/\/ tier: (unit|db|process)\b/m;

/** @param {string} source @returns {"unit" | "db" | "process"} */
export function tierOf(source) {
  const declared = OVERRIDE.exec(source);
  if (declared) return /** @type {"unit" | "db" | "process"} */ (declared[1]);
  if (STARTS_PROCESSES.test(source)) return "process";
  for (const call of source.matchAll(FIXTURE_CALL)) {
    if (!/server:\s*"(none|in-process)"/.test(call[1] ?? "")) return "process";
  }
  return USES_DATABASE.test(source) ? "db" : "unit";
}

/** @param {string} root @param {string} dir @returns {string[]} */
function testFiles(root, dir) {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory())
      return entry.name === "generated" || entry.name === "node_modules" ? [] : testFiles(root, path);
    return entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** Where vitest files live: lib/, test/, and each workspace package's src/ and test/. @param {string} root */
function testDirs(root) {
  const packages = readdirSync(join(root, "packages"), { withFileTypes: true }).filter((d) => d.isDirectory());
  const inPackages = packages.flatMap((d) => [`packages/${d.name}/src`, `packages/${d.name}/test`]);
  return ["lib", "test", ...inPackages.filter((dir) => existsSync(join(root, dir)))];
}

/** Every vitest file of the repo (testDirs), by tier. @param {string} root */
export function filesByTier(root) {
  /** @type {Record<"unit" | "db" | "process", string[]>} */
  const tiers = { unit: [], db: [], process: [] };
  const files = testDirs(root).flatMap((dir) => testFiles(root, dir));
  for (const file of files.sort()) tiers[tierOf(readFileSync(join(root, file), "utf8"))].push(file);
  return tiers;
}

/**
 * `npm run fuzz`: drives a fresh, built Hub with generated and mutated requests and prints the
 * counts; exits 1 on a failure, printing the seed and path that replay it.
 *   --runs N      cases after the warm-up (default 100000: the full run; CI runs 2,000 in vitest)
 *   --seed S      the seed (default random, printed)
 *   --path P      with --seed, replay one failing case (as printed)
 *   --warmup N    cases before the RSS reference (default 3000)
 * Needs PostgreSQL (TEST_PG_URL or the local superuser) and `npm run build` first.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createTestDatabase } from "../test/support/database";
import { releaseDatabase, useDatabase } from "../test/support/provision";
import { logDir, startWeb } from "./bench/lib";
import { formatReport, runFuzz } from "./fuzz/run";
import { FUZZ_HUB_ENV, fuzzContext, provisionFuzzAccounts } from "./fuzz/target";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "100000" },
    seed: { type: "string" },
    path: { type: "string" },
    warmup: { type: "string", default: "3000" },
  },
});
const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
const runs = Number(values.runs);
const warmup = Number(values.warmup);
if (!Number.isInteger(seed) || !Number.isInteger(runs) || runs < 1 || !Number.isInteger(warmup) || warmup < 0) {
  console.error("usage: npm run fuzz -- [--runs N] [--seed S [--path P]] [--warmup N]");
  process.exit(2);
}

async function main(): Promise<number> {
  const database = await createTestDatabase();
  await useDatabase(database.url);
  const logFile = join(logDir(), `fuzz-web-${seed}-${Date.now()}.log`);
  const web = await startWeb(database.url, FUZZ_HUB_ENV, logFile);
  try {
    const context = await fuzzContext(web.url, await provisionFuzzAccounts());
    console.log(`fuzz: seed ${seed}, ${runs} cases after a warm-up of ${warmup}; the web log is ${logFile}`);
    const report = await runFuzz({
      baseUrl: web.url,
      context,
      seed,
      runs,
      warmup,
      path: values.path,
      pid: web.pid,
      onProgress: (done, r) =>
        console.log(`  ${done} requests, ${Object.keys(r.byStatus).length} distinct statuses so far`),
    });
    for (const line of formatReport(report)) console.log(line);
    return report.failure ? 1 : 0;
  } finally {
    await web.stop();
    await releaseDatabase();
    await database.drop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(err);
    process.exit(1);
  },
);

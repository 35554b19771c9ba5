import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import SlowFirst from "./test/support/slow-first";
import { filesByTier, type Tier } from "./test/support/tiers.mjs";

const root = fileURLToPath(new URL(".", import.meta.url));
const tiers = filesByTier(root);

/**
 * Three projects, one per tier (test/support/tiers.ts; CONTRIBUTING.md, "Tests"): `unit` (no
 * database, no child process), `db` (in-process against the real PostgreSQL), `process` (starts Hub
 * processes). `npm run test:unit|db|process` runs one; `.ci/run` runs them in that order and stops
 * at the first that fails. Each tier's setup file makes what it may not use fail.
 *
 * Workers: two for `unit` and `db` (CPU-bound, two cores). Three for `process`: its files spend much
 * of their time waiting on their Hubs — long-polls held, push retries backing off, leases lapsing —
 * so a third file's work fills those waits; its timing bounds are set for a loaded 2-core box.
 */
function project(tier: Tier, order: number, maxWorkers: number) {
  // The `db` and `process` tiers' files share their worker thread's module graph (isolate: false): each
  // imports lib/ once per thread, not once per file, and test/support/process-state.ts gives every
  // file lib/'s process-wide state, connections and environment afresh.
  const shared = tier !== "unit";
  return {
    extends: true as const,
    test: {
      name: tier,
      include: tiers[tier],
      env: { MA2H_TEST_TIER: tier },
      setupFiles: [
        ...(tier === "process" ? [] : ["./test/support/tier-guard.ts"]),
        ...(shared ? ["./test/support/process-state.ts"] : []),
      ],
      // See `shared` above.
      isolate: !shared,
      maxWorkers,
      // One tier after another, in this order (a plain `vitest run` too).
      sequence: { groupOrder: order },
    },
  };
}

export default defineConfig({
  resolve: {
    alias: { "@": root },
  },
  test: {
    environment: "node",
    // The default output, then the slowest files (test/support/slowest-files.ts).
    reporters: ["default", "./test/support/slowest-files.ts"],
    // Slowest files first, by a recent CI run's timings (test/support/slow-first.ts).
    sequence: { sequencer: SlowFirst },
    // Worker threads, not forked processes: a file's worker starts cheaper (the db tier's CPU fell by
    // about a fifth, the process tier's wall time by 30 s on the 2-core CI box). The tests need nothing
    // only a process has: no chdir, and each Hub is a child process with its own environment
    // (test/support/hub.ts). The `unit` tier gives every file a fresh module graph; `db` and `process`
    // share one per thread and reset lib/'s state per file instead (project() above).
    pool: "threads",
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Files run in parallel: each has its own database, Redis queue prefix and free ports
    // (test/support), so files do not share state.
    fileParallelism: true,
    projects: [project("unit", 0, 2), project("db", 1, 2), project("process", 2, 3)],
  },
});

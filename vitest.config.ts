import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: { "@": fileURLToPath(new URL(".", import.meta.url)) },
  },
  test: {
    include: ["lib/**/*.test.ts", "test/**/*.test.ts"],
    environment: "node",
    // The default output, then the slowest files (test/support/slowest-files.ts).
    reporters: ["default", "./test/support/slowest-files.ts"],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Two files at a time (#19): each file has its own database, Redis queue prefix and free ports
    // (test/support), so files do not share state. On the 2-core CI machine this took the suite
    // from ~1,500 s to ~700 s of wall time, with the whole suite green; the files' own waits
    // (long-polls, push retries, child processes starting) overlap instead of adding up.
    fileParallelism: true,
    maxWorkers: 2,
  },
});

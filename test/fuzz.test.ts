/**
 * The CI fuzz run: 2,000 generated and mutated requests (after a warm-up) against the
 * built Hub, judged by scripts/fuzz/oracle.ts — no status ≥ 500, every 4xx under /v1 and
 * /.well-known a §8.5 envelope, the web process up and its RSS within +50 MiB of its value after
 * the warm-up. The full run is `npm run fuzz` (100,000 cases). The seed is fixed, so a failure here
 * replays with `npm run fuzz -- --seed <seed> --path <path>` as printed.
 */
// covers: scripts/fuzz/run.ts, scripts/fuzz/target.ts, server/request-guard.ts, lib/http/handler.ts
import { describe, expect, it } from "vitest";
import { useHubFixture } from "./support/hub-fixture";
import { formatReport, runFuzz } from "../scripts/fuzz/run";
import { FUZZ_HUB_ENV, fuzzContext, provisionFuzzAccounts } from "../scripts/fuzz/target";

const SEED = 19_000_019;
let creds: Awaited<ReturnType<typeof provisionFuzzAccounts>>;
const hub = useHubFixture({
  env: FUZZ_HUB_ENV,
  setup: async () => {
    creds = await provisionFuzzAccounts();
  },
});

describe("fuzzing the running Hub", () => {
  it("survives 2,000 cases: no 5xx, §8.5 envelopes under /v1 and /.well-known, bounded RSS", async () => {
    const report = await runFuzz({
      baseUrl: hub.url,
      context: await fuzzContext(hub.url, creds),
      seed: SEED,
      runs: 2000,
      warmup: 1000,
      pid: hub.web.child.pid as number,
    });
    for (const line of formatReport(report)) console.log(line);
    expect(report.failure).toBeNull();
    expect(report.sent).toBeGreaterThanOrEqual(3000);
    // Every route family was reached, and the cases got past authentication into the domain code.
    for (const family of [
      "submit",
      "pull",
      "resolve",
      "cancel",
      "ack",
      "drain",
      "inbox-ack",
      "directive",
      "presence",
      "raw-head",
      "hang-up",
      "page",
      "server-action",
    ])
      expect(report.byFamily[family] ?? 0, family).toBeGreaterThan(20);
    for (const status of ["200", "202", "400", "401", "403", "404", "409", "422"])
      expect(report.byStatus[status] ?? 0, status).toBeGreaterThan(0);
  });
});

/**
 * The framework floor bench:submit compares the Hub with (app/bench/floor): served only when both
 * MA2H_DEV_MODE=1 and MA2H_BENCH_FLOOR=1 — it writes unauthenticated rows — and then exactly the
 * baseline's one INSERT through the Hub's pool, into the migrations' `bench_baseline`.
 */
// covers: app/bench/floor/route.ts, app/bench/floor/floor.sql.ts
import { afterEach, describe, expect, it } from "vitest";
import { POST } from "../app/bench/floor/route";
import { db } from "../lib/db";
import { resetEnvCache } from "../lib/env";
import { useTestDatabase } from "./support/test-database";

useTestDatabase();

const saved = { dev: process.env.MA2H_DEV_MODE, floor: process.env.MA2H_BENCH_FLOOR };
afterEach(() => {
  for (const [name, value] of [
    ["MA2H_DEV_MODE", saved.dev],
    ["MA2H_BENCH_FLOOR", saved.floor],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetEnvCache();
});

const post = () =>
  POST(
    new Request("http://hub.test/bench/floor", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type: "ask", agent: { id: "bench/agent-1" } }),
    }),
  );
const rows = () => db().benchBaseline.count();

describe("POST /bench/floor", () => {
  it("is 404 unless dev mode and MA2H_BENCH_FLOOR are both on; then one row per request", async () => {
    for (const [dev, floor] of [
      ["0", "1"],
      ["1", "0"],
      ["0", "0"],
    ]) {
      process.env.MA2H_DEV_MODE = dev;
      process.env.MA2H_BENCH_FLOOR = floor;
      resetEnvCache();
      expect((await post()).status, `dev ${dev}, floor ${floor}`).toBe(404);
    }
    expect(await rows()).toBe(0);
    process.env.MA2H_DEV_MODE = "1";
    process.env.MA2H_BENCH_FLOOR = "1";
    resetEnvCache();
    const res = await post();
    expect(res.status).toBe(202);
    expect((await res.json()).id).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(await rows()).toBe(1);
  });
});

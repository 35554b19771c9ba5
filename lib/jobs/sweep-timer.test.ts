/** The one sweep timer runs every sweep at start, then each once per its own period. */
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { startSweepTimer } from "./sweep-timer";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

it("runs each sweep at start and then every period of its own", async () => {
  const runs: Record<string, number[]> = { fast: [], slow: [] };
  const t0 = Date.now();
  const sweep = (name: string, periodMs: number) => ({
    name,
    periodMs,
    run: async () => void runs[name]!.push(Date.now() - t0),
  });
  const timer = startSweepTimer([sweep("fast", 5000), sweep("slow", 10_000)]);
  await vi.advanceTimersByTimeAsync(20_000);
  await timer.stop();
  expect(runs.fast).toEqual([0, 5000, 10_000, 15_000, 20_000]);
  expect(runs.slow).toEqual([0, 10_000, 20_000]);
});

it("keeps running after a sweep fails, and stop() waits for sweeps in flight", async () => {
  let calls = 0;
  let finished = false;
  const timer = startSweepTimer([
    {
      name: "flaky",
      periodMs: 1000,
      run: async () => {
        calls++;
        throw new Error("down");
      },
    },
    {
      name: "slow",
      periodMs: 60_000,
      run: () =>
        new Promise<void>((r) =>
          setTimeout(() => {
            finished = true;
            r();
          }, 1500),
        ),
    },
  ]);
  await vi.advanceTimersByTimeAsync(1000);
  const stopped = timer.stop();
  await vi.advanceTimersByTimeAsync(1000);
  await stopped;
  expect(calls).toBe(2);
  expect(finished).toBe(true);
});

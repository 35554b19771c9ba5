/**
 * §8.6 per-`agent.id` submit rate: a fixed one-minute window counted in a store every process
 * shares — Redis when configured, else a PostgreSQL counter row. Over the limit is 429, retryable
 * when the window ends (the HTTP edge sends that as `Retry-After`).
 */
import { clock } from "./clock";
import { limits } from "./env";
import { db } from "./db";
import { HubError } from "@ma2h/protocol/errors";
import { incrementRateCounter } from "./rate-limit.sql";
import { redis } from "./redis";

const WINDOW_MS = 60_000;

async function increment(key: string, windowStart: Date): Promise<number> {
  const r = redis();
  if (r) {
    const k = `ma2h:rate:${key}:${windowStart.getTime()}`;
    const [[, count]] = (await r
      .multi()
      .incr(k)
      .pexpire(k, WINDOW_MS * 2)
      .exec()) as [[unknown, number]];
    return count;
  }
  return incrementRateCounter(key, windowStart);
}

/** Counts one event under `key` in the current one-minute window: the count so far and the seconds left. */
export async function countInWindow(key: string): Promise<{ count: number; secondsLeft: number }> {
  const now = clock.now().getTime();
  const windowStart = new Date(now - (now % WINDOW_MS));
  const count = await increment(key, windowStart);
  return { count, secondsLeft: (windowStart.getTime() + WINDOW_MS - now) / 1000 };
}

/** What the agent's own budget counts: §8.6 submits, and session registrations (§16.1) with them. */
export const AGENT_BUDGET_COUNTS = "submits and session registrations";

/**
 * Counts one request for `key`; throws 429 when the window's budget is spent. `counts` names what
 * the budget counts, so the refusal reads right for whichever request spent it last.
 */
export async function consumeSubmitBudget(
  key: string,
  perMinute = limits().requestsPerMinute,
  counts = AGENT_BUDGET_COUNTS,
): Promise<void> {
  const { count, secondsLeft } = await countInWindow(key);
  if (count > perMinute) {
    throw new HubError("rate_limited", `over ${perMinute} ${counts} per minute for this agent`, {
      retryAfterSeconds: secondsLeft,
    });
  }
}

/** Drops PostgreSQL counter rows of windows long past (the worker calls this from its sweep). */
export async function pruneRateCounters(now: Date): Promise<void> {
  await db().rateCounter.deleteMany({ where: { windowStart: { lt: new Date(now.getTime() - 2 * WINDOW_MS) } } });
}

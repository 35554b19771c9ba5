/**
 * Waiting in tests: on the thing itself (a row, a notification, a log line, a delivery), never on a
 * fixed sleep. A fixed sleep is either too short on a loaded 2-core box (a flake) or too long
 * everywhere else (a slow suite); `waitFor` returns as soon as the probe holds and fails with what it
 * was waiting for when it never does. `staysFalse` is the one honest fixed window: a claim that
 * something does NOT happen for a while, which fails as soon as it does.
 */

export interface WaitOptions {
  /** What is awaited, for the failure message. */
  what?: string;
  /** Give up after this long (default 15 s: generous on a loaded CI box; a pass returns at once). */
  timeout?: number;
  /** Between probes (default 50 ms). */
  every?: number;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Probes until it returns a value other than undefined, null or false, and returns that value. A
 * probe that throws is retried (the thing may not exist yet); the last error is in the failure.
 */
export async function waitFor<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  options: WaitOptions = {},
): Promise<T> {
  const { timeout = 15_000, every = 50, what = "the condition" } = options;
  const deadline = Date.now() + timeout;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : "";
      throw new Error(`timed out after ${timeout} ms waiting for ${what}${why}`);
    }
    await pause(every);
  }
}

/** Reads until `ok` holds for what it read; returns that reading. */
export function waitUntil<T>(read: () => T | Promise<T>, ok: (value: T) => boolean, options: WaitOptions = {}) {
  return waitFor(async () => {
    const value = await read();
    return ok(value) ? { value } : undefined;
  }, options).then((box) => box.value);
}

/**
 * Asserts that `happened` stays false for `ms` (a window in which something must NOT happen: no
 * push, no second delivery, no wake-up), probing every `every` ms and failing at the first true.
 */
export async function staysFalse(
  happened: () => boolean | Promise<boolean>,
  ms: number,
  what = "the event",
  every = 50,
): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await happened()) throw new Error(`${what} happened within the ${ms} ms it must not`);
    if (Date.now() >= deadline) return;
    await pause(Math.min(every, Math.max(0, deadline - Date.now())));
  }
}

/**
 * Lets real time pass where the behaviour under test is time itself and no clock can be injected
 * across a process boundary (a lease that lapses by the database's `now()`, a cache TTL inside a Hub
 * process, a long-poll held for a while before a signal). Each call says why; anything else waits
 * with `waitFor`.
 */
export async function elapse(ms: number, why: string): Promise<void> {
  if (!why) throw new Error("elapse() needs its reason");
  await pause(ms);
}

/**
 * §8.3 push retry schedule: first attempt at once, then exponential gaps (base × factor^n) with at
 * most ±10 % jitter, each gap capped, at most `maxAttempts` attempts and never past `maxDurationMs`
 * after the obligation was created. With factor ≥ 2 and ±10 % jitter every gap stays longer than
 * the one before it until the cap (1.8 > 1.1).
 */
export interface RetryPolicy {
  baseDelayMs: number;
  factor: number;
  maxGapMs: number;
  maxAttempts: number;
  maxDurationMs: number;
  jitter: number;
}

/** The gap after attempt number `attempt` (1-based) has failed. */
export function retryGapMs(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const raw = policy.baseDelayMs * policy.factor ** Math.max(0, attempt - 1);
  const jittered = raw * (1 + policy.jitter * (2 * random() - 1));
  return Math.round(Math.min(policy.maxGapMs, jittered));
}

/**
 * When the next attempt is due after attempt number `attempt` failed with a retryable error, or
 * null when the obligation is exhausted (attempt cap, or the next attempt would land past the
 * total-duration cap).
 */
export function nextAttemptAt(
  policy: RetryPolicy,
  createdAt: Date,
  now: Date,
  attempt: number,
  random?: () => number,
): Date | null {
  if (attempt >= policy.maxAttempts) return null;
  const due = now.getTime() + retryGapMs(policy, attempt, random);
  if (due - createdAt.getTime() > policy.maxDurationMs) return null;
  return new Date(due);
}

/** §8.3: 5xx, timeouts and network errors retry; 2xx is done; 3xx and 4xx are final (no redirects, §9.4). */
export type AttemptVerdict = "delivered" | "retry" | "failed";

export function verdictForStatus(status: number): AttemptVerdict {
  if (status >= 200 && status < 300) return "delivered";
  if (status >= 500) return "retry";
  return "failed";
}

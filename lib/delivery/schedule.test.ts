import { describe, expect, it } from "vitest";
import { nextAttemptAt, retryGapMs, verdictForStatus, type RetryPolicy } from "./schedule";

const policy: RetryPolicy = {
  baseDelayMs: 2000,
  factor: 2,
  maxGapMs: 3_600_000,
  maxAttempts: 20,
  maxDurationMs: 86_400_000,
  jitter: 0.1,
};

describe("push retry schedule", () => {
  it("doubles from the base gap, within ±10 % jitter", () => {
    expect(retryGapMs(policy, 1, () => 0.5)).toBe(2000);
    expect(retryGapMs(policy, 2, () => 0.5)).toBe(4000);
    expect(retryGapMs(policy, 3, () => 0.5)).toBe(8000);
    expect(retryGapMs(policy, 1, () => 0)).toBe(1800);
    expect(retryGapMs(policy, 1, () => 1)).toBe(2200);
  });

  it("keeps every gap longer than the one before until the cap, whatever the jitter", () => {
    for (let trial = 0; trial < 200; trial++) {
      let previous = 0;
      for (let attempt = 1; attempt < 20; attempt++) {
        const gap = retryGapMs(policy, attempt);
        if (gap < policy.maxGapMs) expect(gap).toBeGreaterThan(previous);
        expect(gap).toBeLessThanOrEqual(policy.maxGapMs);
        previous = gap;
      }
    }
  });

  it("stops at the attempt cap and at the total-duration cap", () => {
    const created = new Date(0);
    expect(nextAttemptAt(policy, created, new Date(1000), 20)).toBeNull();
    expect(nextAttemptAt(policy, created, new Date(1000), 19, () => 0.5)?.getTime()).toBe(1000 + 3_600_000);
    expect(nextAttemptAt(policy, created, new Date(86_000_000), 10, () => 0.5)).toBeNull();
    expect(nextAttemptAt(policy, created, new Date(86_000_000), 5, () => 0.5)?.getTime()).toBe(86_032_000);
  });

  it("retries 5xx only; 2xx delivers; 3xx and 4xx are final", () => {
    expect([200, 204, 299].map(verdictForStatus)).toEqual(["delivered", "delivered", "delivered"]);
    expect([500, 502, 503].map(verdictForStatus)).toEqual(["retry", "retry", "retry"]);
    expect([301, 302, 307, 400, 401, 404, 429].map(verdictForStatus)).toEqual(Array(7).fill("failed"));
  });
});

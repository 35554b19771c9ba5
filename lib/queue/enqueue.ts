/**
 * What the domain calls after its transaction commits to hand work to the worker. Everything here is
 * best effort: a failure to enqueue is logged and left to the worker's sweeps, which re-derive every
 * due expiry and push obligation from PostgreSQL (§3.1) — so a failure delays work, never loses it.
 * A leaf: it imports no domain module, so any domain verb may import it.
 */
import { clock } from "../clock";
import { log } from "../log";
import { EXPIRE_JOB, PUSH_JOB, type JobPayload } from "./jobs";
import { producer } from "./producer";

/** Schedules the expiry of one message for just after `expiresAt`. */
export async function scheduleExpiry(messageId: string, expiresAt: Date): Promise<void> {
  // +1 ms: expiry wins only strictly after expires_at (§7).
  const delay = Math.max(0, expiresAt.getTime() + 1 - clock.now().getTime());
  try {
    await producer(EXPIRE_JOB.queue).add(EXPIRE_JOB.name, { messageId } satisfies JobPayload<typeof EXPIRE_JOB>, {
      jobId: `expire-${messageId}`,
      delay,
      removeOnComplete: true,
      removeOnFail: 1000,
      attempts: 5,
      backoff: { type: "exponential", delay: 1000 },
    });
  } catch (err) {
    log.warn("could not schedule expiry job; the sweep will expire it", {
      message_id: messageId,
      error_name: (err as Error).name,
    });
  }
}

/**
 * Enqueues attempt `attemptNo` of one push obligation, due at `at`. The job id (row + attempt
 * number) deduplicates the enqueue-on-commit, the handler's retry and the sweep; finished jobs are
 * removed either way, because BullMQ ignores an add whose id it still holds — a kept failed job
 * would block the sweep's re-enqueue of that attempt for good. The worker logs failures.
 */
export async function enqueuePush(deliveryId: string, at: Date, attemptNo: number): Promise<void> {
  try {
    await producer(PUSH_JOB.queue).add(PUSH_JOB.name, { deliveryId } satisfies JobPayload<typeof PUSH_JOB>, {
      jobId: `push-${deliveryId}-${attemptNo}`,
      delay: Math.max(0, at.getTime() - clock.now().getTime()),
      removeOnComplete: true,
      removeOnFail: true,
    });
  } catch (err) {
    log.warn("could not enqueue push; the sweep will", { delivery_id: deliveryId, error_name: (err as Error).name });
  }
}

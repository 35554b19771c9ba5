/**
 * What the domain calls after its transaction commits to hand work to the worker. Everything here is
 * best effort: a failure to enqueue is logged and left to the worker's sweeps, which re-derive every
 * due expiry and push obligation from PostgreSQL (§3.1) — so a failure delays work, never loses it.
 * A leaf: it imports no domain module, so any domain verb may import it.
 */
import { clock } from "../clock";
import { log } from "../log";
import { EXPIRE_JOB, NOTIFY_JOB, PUSH_JOB, type JobPayload } from "./jobs";
import { producer } from "./producer";

/** Schedules the expiry of one message for just after `expiresAt`. */
export async function scheduleExpiry(messageId: string, expiresAt: Date): Promise<void> {
  // +1 ms: expiry wins only strictly after expires_at (§7).
  const delay = Math.max(0, expiresAt.getTime() + 1 - clock.now().getTime());
  try {
    await (await producer(EXPIRE_JOB.queue)).add(
      EXPIRE_JOB.name,
      { messageId } satisfies JobPayload<typeof EXPIRE_JOB>,
      {
        jobId: `expire-${messageId}`,
        delay,
        removeOnComplete: true,
        removeOnFail: 1000,
        attempts: 5,
        backoff: { type: "exponential", delay: 1000 },
      },
    );
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
    await (await producer(PUSH_JOB.queue)).add(PUSH_JOB.name, { deliveryId } satisfies JobPayload<typeof PUSH_JOB>, {
      jobId: `push-${deliveryId}-${attemptNo}`,
      delay: Math.max(0, at.getTime() - clock.now().getTime()),
      removeOnComplete: true,
      removeOnFail: true,
    });
  } catch (err) {
    log.warn("could not enqueue push; the sweep will", { delivery_id: deliveryId, error_name: (err as Error).name });
  }
}

/**
 * Wakes the notification fan-out of one message (its outbox row, then each due notification row),
 * at `at` (now by default). `wake` tells repeats apart — the commit's wake-up, each retry's, the
 * sweep's — so a finished job never blocks a later one; the rows, claimed under a lease, make any
 * duplicate wake-up harmless. Best effort: the notification sweep re-finds everything unprocessed.
 */
export async function enqueueNotify(messageId: string, wake: string, at?: Date): Promise<void> {
  try {
    await (await producer(NOTIFY_JOB.queue)).add(
      NOTIFY_JOB.name,
      { messageId } satisfies JobPayload<typeof NOTIFY_JOB>,
      {
        jobId: `notify-${messageId}-${wake}`,
        delay: at ? Math.max(0, at.getTime() - clock.now().getTime()) : 0,
        removeOnComplete: true,
        removeOnFail: true,
      },
    );
  } catch (err) {
    log.warn("could not enqueue notifications; the sweep will", {
      message_id: messageId,
      error_name: (err as Error).name,
    });
  }
}

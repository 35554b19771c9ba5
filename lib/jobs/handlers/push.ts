/**
 * The `delivery.push` job: one attempt at one push obligation, by row id (lib/delivery/push-attempt.ts).
 * The first attempt is made when the worker hears the obligation's NOTIFY (lib/jobs/wake.ts,
 * which calls this same handler); a redrive enqueues it, each retry is re-enqueued here, and the
 * delivery sweep re-derives every due obligation from PostgreSQL at worker start and every ≤ 10 s —
 * so a SIGKILL, a missed NOTIFY or a Redis that forgets its jobs loses nothing (§3.1).
 */
import { attemptPush } from "../../delivery/push-attempt";
import { enqueuePush } from "../../queue/enqueue";
import { PUSH_JOB } from "../../queue/jobs";
import { defineJob } from "../define";

export const pushJob = defineJob(PUSH_JOB, 8, async ({ deliveryId }) => {
  const result = await attemptPush(deliveryId);
  if (result.outcome === "retry" && result.nextAt) {
    await enqueuePush(deliveryId, result.nextAt, (result.attempts ?? 0) + 1);
  }
});

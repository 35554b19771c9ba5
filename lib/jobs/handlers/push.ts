/**
 * The `delivery.push` job: one attempt at one push obligation, by row id (lib/delivery/push-attempt.ts).
 * Enqueued on commit of the terminal transition (first attempt within 2 s) and of a redrive,
 * re-enqueued here for each retry, and re-derived from PostgreSQL by the delivery sweep at worker
 * start and every ≤ 10 s — so a SIGKILL or a Redis that forgets its jobs loses nothing (§3.1).
 */
import { db } from "../../db";
import { attemptPush } from "../../delivery/push-attempt";
import { enqueuePush } from "../../queue/enqueue";
import { PUSH_JOB } from "../../queue/jobs";
import { defineJob } from "../define";

export const pushJob = defineJob(PUSH_JOB, 8, async ({ deliveryId }) => {
  const result = await attemptPush(deliveryId);
  if (result.outcome === "retry" && result.nextAt) {
    const row = await db().pushDelivery.findUnique({ where: { id: deliveryId }, select: { attempts: true } });
    await enqueuePush(deliveryId, result.nextAt, (row?.attempts ?? 0) + 1);
  }
});

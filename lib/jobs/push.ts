/**
 * The `delivery.push` job: one attempt at one push obligation, by row id. Enqueued on commit of the
 * terminal transition (first attempt within 2 s), re-enqueued by the handler for each retry, and
 * re-derived from PostgreSQL by the sweep at worker start and every ≤ 10 s — so a SIGKILL or a
 * Redis that forgets its jobs loses nothing (§3.1).
 */
import { z } from "zod";
import { clock } from "../clock";
import { db } from "../db";
import { log } from "../log";
import { attemptPush } from "../delivery/push";
import { producer } from "./producer";
import { QUEUE } from "./queues";

export const pushJobSchema = z.object({ deliveryId: z.string().startsWith("dlv_") });

/**
 * Best effort: a failure to enqueue is logged and left to the sweep. The job id (row + attempt
 * number) deduplicates the enqueue-on-commit, the handler's retry and the sweep; finished jobs are
 * removed either way, because BullMQ ignores an add whose id it still holds — a kept failed job
 * would block the sweep's re-enqueue of that attempt for good. The worker logs failures.
 */
export async function enqueuePush(deliveryId: string, at: Date, attemptNo: number): Promise<void> {
  try {
    await producer(QUEUE.push).add("delivery.push", { deliveryId }, {
      jobId: `push-${deliveryId}-${attemptNo}`,
      delay: Math.max(0, at.getTime() - clock.now().getTime()),
      removeOnComplete: true,
      removeOnFail: true,
    });
  } catch (err) {
    log.warn("could not enqueue push; the sweep will", { delivery_id: deliveryId, error_name: (err as Error).name });
  }
}

export async function handlePushJob(data: unknown): Promise<void> {
  const { deliveryId } = pushJobSchema.parse(data);
  const result = await attemptPush(deliveryId);
  if (result.outcome === "retry" && result.nextAt) {
    const row = await db().pushDelivery.findUnique({ where: { id: deliveryId }, select: { attempts: true } });
    await enqueuePush(deliveryId, result.nextAt, (row?.attempts ?? 0) + 1);
  }
}

/** Enqueues every pending obligation due within the next sweep period. */
export async function sweepDueDeliveries(horizonMs: number): Promise<number> {
  const now = clock.now();
  const due = await db().pushDelivery.findMany({
    where: {
      status: "pending",
      nextAttemptAt: { lte: new Date(now.getTime() + horizonMs) },
      OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }],
    },
    select: { id: true, nextAttemptAt: true, attempts: true },
    orderBy: { nextAttemptAt: "asc" },
    take: 1000,
  });
  for (const d of due) await enqueuePush(d.id, d.nextAttemptAt, d.attempts + 1);
  return due.length;
}

/**
 * After a redrive (lib/delivery/admin.ts) from a process that has the queue — the web admin —
 * enqueue the fresh cycle's first attempt now rather than at the next sweep. Best effort, like
 * every enqueue: the sweep remains the backstop (the CLI relies on it).
 */
export async function enqueueRedriven(deliveryId: string): Promise<void> {
  const row = await db().pushDelivery.findUnique({ where: { id: deliveryId }, select: { status: true, attempts: true, nextAttemptAt: true } });
  if (row?.status === "pending") await enqueuePush(deliveryId, row.nextAttemptAt, row.attempts + 1);
}

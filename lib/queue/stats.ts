/**
 * Scrape-time readings of the BullMQ queues for metrics (lib/gauges/): job counts by state and the
 * lag of each queue — how long its oldest due job has waited (a waiting job since it was added or
 * fell due, a delayed one past its due time, which means no worker promoted it).
 */
import { producer } from "./producer";
import { QUEUE, type QueueName } from "./queues";

export const QUEUE_STATES = ["wait", "prioritized", "active", "delayed", "failed"] as const;

export interface QueueStats {
  queue: QueueName;
  counts: Record<(typeof QUEUE_STATES)[number], number>;
  lagSeconds: number;
}

/** Seconds past due of the first job `getJobs` returns for `state` (oldest first), or 0. */
async function oldestDue(queue: ReturnType<typeof producer>, state: "wait" | "prioritized" | "delayed", now: number) {
  const [job] = await queue.getJobs(state, 0, 0, true);
  if (!job) return 0;
  return Math.max(0, (now - (job.timestamp + (job.delay ?? 0))) / 1000);
}

export async function queueStats(now: Date): Promise<QueueStats[]> {
  const t = now.getTime();
  return Promise.all(
    Object.values(QUEUE).map(async (name) => {
      const queue = producer(name);
      const counts = await queue.getJobCounts(...QUEUE_STATES);
      const lags = await Promise.all([
        oldestDue(queue, "wait", t),
        oldestDue(queue, "prioritized", t),
        oldestDue(queue, "delayed", t),
      ]);
      return {
        queue: name,
        counts: Object.fromEntries(QUEUE_STATES.map((s) => [s, counts[s] ?? 0])) as QueueStats["counts"],
        lagSeconds: Math.max(...lags),
      };
    }),
  );
}

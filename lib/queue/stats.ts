/**
 * Scrape-time readings of the BullMQ queues for metrics (lib/gauges/): job counts by state and the
 * lag of each queue — how long its oldest due job has waited (a waiting job since it was added or
 * fell due, a delayed one past its due time, which means no worker promoted it).
 */
import { producer } from "./producer";
import { QUEUE, type QueueName } from "./names";

export const QUEUE_STATES = ["wait", "prioritized", "active", "delayed", "failed"] as const;

export interface QueueStats {
  queue: QueueName;
  counts: Record<(typeof QUEUE_STATES)[number], number>;
  lagSeconds: number;
}

/**
 * Seconds past due of the oldest job in `state` (0 when none waits), from two-job reads at both ends.
 * With Redis the ascending read starts at the oldest. BullMQ 6.7's PostgreSQL backend reads a range
 * one place off (measured: ascending `0..1` of j1, j2, j4 is j2, j4; descending is j4, j2), so there
 * the oldest of three or more is missed and the second oldest stands in — within a job of the truth
 * for a backlog, and exact for one or two jobs. Reading the whole list would cost a backlog's worth.
 */
async function oldestDue(
  queue: Awaited<ReturnType<typeof producer>>,
  state: "wait" | "prioritized" | "delayed",
  now: number,
) {
  const ends = await Promise.all([queue.getJobs(state, 0, 1, true), queue.getJobs(state, 0, 1, false)]);
  let lag = 0;
  for (const job of ends.flat()) if (job) lag = Math.max(lag, (now - (job.timestamp + (job.delay ?? 0))) / 1000);
  return lag;
}

export async function queueStats(now: Date): Promise<QueueStats[]> {
  const t = now.getTime();
  return Promise.all(
    Object.values(QUEUE).map(async (name) => {
      const queue = await producer(name);
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

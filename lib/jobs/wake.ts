/**
 * First attempts without a queue hop (#20): a committing statement NOTIFYs the id of the work it
 * just made due — a push obligation with its §7 transition (lib/messages/lifecycle.ts), a new
 * message's notification fan-out with its submit (lib/messages/submit-statement.ts) — and the worker
 * hears it and runs that job's own handler at once, instead of the web paying for a queue insert per
 * request and the worker waiting on a queue poll. Bounded: past `maxInFlight` handlers under way an id
 * goes to the queue instead. Nothing depends on this path: each handler claims its rows (a lease, a
 * unique key), so a queued job for the same work finds it taken, and a NOTIFY nobody heard (the worker
 * down, its LISTEN connection lost) is re-found from PostgreSQL by the delivery and notification
 * sweeps (§3.1). Retries and timers stay with the queue.
 */
import { clock } from "../clock";
import { log } from "../log";
import { FANOUT_CHANNEL, PUSH_CHANNEL, type Channel } from "../pubsub/channels";
import { notificationListener } from "../pubsub/listener";
import { enqueueNotify, enqueuePush } from "../queue/enqueue";
import type { JobDefinition } from "./define";
import { notifyJob } from "./handlers/notifications";
import { pushJob } from "./handlers/push";

interface Wake {
  channel: Channel;
  job: JobDefinition;
  payload(id: string): unknown;
  /** Where an id goes when too many handlers are under way. */
  queue(id: string): Promise<void>;
}

const WAKES: readonly Wake[] = [
  {
    channel: PUSH_CHANNEL,
    job: pushJob,
    payload: (deliveryId) => ({ deliveryId }),
    queue: (deliveryId) => enqueuePush(deliveryId, clock.now(), 1),
  },
  {
    channel: FANOUT_CHANNEL,
    job: notifyJob,
    payload: (messageId) => ({ messageId }),
    queue: (messageId) => enqueueNotify(messageId, "new"),
  },
];

export interface JobWakes {
  stop(): Promise<void>;
}

export async function startJobWakes(maxInFlight = 16): Promise<JobWakes> {
  const running = new Set<Promise<void>>();
  const unsubscribes = WAKES.map((wake) =>
    notificationListener().subscribe(wake.channel, {
      payload(id) {
        if (running.size >= maxInFlight) {
          void wake.queue(id);
          return;
        }
        const run = wake.job
          .handle(wake.payload(id))
          .catch((err: Error) =>
            log.warn("woken job failed; the sweep retries it", { channel: wake.channel, error_name: err.name }),
          )
          .finally(() => running.delete(run));
        running.add(run);
      },
      lost() {
        // Missed ids are re-found by the sweeps; the listener reconnects by itself.
      },
    }),
  );
  await notificationListener().ready();
  return {
    async stop() {
      for (const unsubscribe of unsubscribes) unsubscribe();
      await Promise.allSettled([...running]);
    },
  };
}

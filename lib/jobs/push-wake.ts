/**
 * The first push attempt without a queue hop (#20): the §7 statement NOTIFYs the new obligation's id
 * on PUSH_CHANNEL when it commits (lib/messages/lifecycle.ts); the worker hears it and runs the push
 * job's own handler at once. Bounded: past `maxInFlight` attempts under way, an id goes to the queue
 * instead. Nothing depends on this path — the attempt claims its row with a lease (so a queued job
 * for the same attempt finds it taken), and a NOTIFY nobody heard (the worker down, its LISTEN
 * connection lost) is re-found by the delivery sweep from PostgreSQL (§3.1).
 */
import { clock } from "../clock";
import { log } from "../log";
import { notificationListener } from "../pubsub/listener";
import { PUSH_CHANNEL } from "../pubsub/channels";
import { enqueuePush } from "../queue/enqueue";
import { pushJob } from "./handlers/push";

export interface PushWake {
  stop(): Promise<void>;
}

export async function startPushWake(maxInFlight = 16): Promise<PushWake> {
  const running = new Set<Promise<void>>();
  const unsubscribe = notificationListener().subscribe(PUSH_CHANNEL, {
    payload(deliveryId) {
      if (running.size >= maxInFlight) {
        void enqueuePush(deliveryId, clock.now(), 1);
        return;
      }
      const attempt = pushJob
        .handle({ deliveryId })
        .catch((err: Error) => log.warn("push attempt failed", { delivery_id: deliveryId, error_name: err.name }))
        .finally(() => running.delete(attempt));
      running.add(attempt);
    },
    lost() {
      // Missed ids are found by the delivery sweep; the listener reconnects by itself.
    },
  });
  await notificationListener().ready();
  return {
    async stop() {
      unsubscribe();
      await Promise.allSettled([...running]);
    },
  };
}

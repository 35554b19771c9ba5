/**
 * Work woken by the statement that made it due: the §7 transition NOTIFYs its new push
 * obligation's id (lib/messages/lifecycle.ts) and a submit its message's id for the notification
 * fan-out (lib/messages/submit.sql.ts), so the web pays no queue insert per request.
 * - A push's first attempt is run here at once by the push job's own handler — no queue hop, no
 *   poll — at most PUSH_IN_FLIGHT at a time; past that, the id waits in a local line (in order) for
 *   the next free slot, and past PUSH_WAITING it goes to the queue. The line is only memory: a
 *   worker that dies with ids in it loses nothing, the delivery sweep re-finds every due row.
 * - A fan-out is handed to the queue from here: it is not latency-bound, and the queue's concurrency
 *   is what keeps its transactions from holding every pooled connection at once.
 * - A message turned terminal (the long-poll channel) pushes its A2A push configs' final task.
 * Nothing depends on this path: each handler claims its rows (a lease, a unique key), so a queued job
 * for the same work finds it taken, and a NOTIFY nobody heard (the worker down, its LISTEN connection
 * lost) is re-found from PostgreSQL by the delivery and notification sweeps (§3.1). Retries and
 * timers stay with the queue.
 */
import { ID_PREFIX } from "@ma2h/protocol/ids";
import { clock } from "../clock";
import { log } from "../log";
import { pushDueA2a } from "../a2a/push";
import { FANOUT_CHANNEL, PUSH_CHANNEL, TERMINAL_CHANNEL, UNDELIVERABLE_CHANNEL } from "../pubsub/channels";
import { settleUndeliverable } from "../mailbox/undeliverable";
import { notificationListener } from "../pubsub/listener";
import { enqueueNotify, enqueuePush } from "../queue/enqueue";
import { pushJob } from "./handlers/push";

const MESSAGE_ID_PREFIX = ID_PREFIX.message;

/**
 * First push attempts run here at once; the queue's own push concurrency comes on top. An attempt
 * holds a pooled connection only for its two statements, not while it waits on the receiver.
 */
const PUSH_IN_FLIGHT = 16;
/** Woken ids waiting for a slot; a burst past this goes to the queue instead. */
const PUSH_WAITING = 10_000;

export interface JobWakes {
  stop(): Promise<void>;
}

export async function startJobWakes(): Promise<JobWakes> {
  const running = new Set<Promise<void>>();
  const pushing = new Set<Promise<void>>();
  const waiting: string[] = [];
  const startPush = (deliveryId: string) => {
    const run = pushJob
      .handle({ deliveryId })
      .catch((err: Error) => log.warn("push attempt failed; the sweep retries it", { error_name: err.name }))
      .finally(() => {
        running.delete(run);
        pushing.delete(run);
        const next = waiting.shift();
        if (next !== undefined) startPush(next);
      });
    running.add(run);
    pushing.add(run);
  };
  const lost = () => {
    // Missed ids are re-found by the sweeps; the listener reconnects by itself.
  };
  const unsubscribes = [
    notificationListener().subscribe(PUSH_CHANNEL, {
      payload(deliveryId) {
        if (pushing.size < PUSH_IN_FLIGHT) startPush(deliveryId);
        else if (waiting.length < PUSH_WAITING) waiting.push(deliveryId);
        else void enqueuePush(deliveryId, clock.now(), 1);
      },
      lost,
    }),
    notificationListener().subscribe(FANOUT_CHANNEL, {
      payload: (messageId) => void enqueueNotify(messageId, "new"),
      lost,
    }),
    // An addressed message's entry ended undeliverable — its receipt and §7 auto-resolution.
    notificationListener().subscribe(UNDELIVERABLE_CHANNEL, {
      payload(entryId) {
        const run = settleUndeliverable(clock.now(), entryId)
          .then(() => undefined)
          .catch((err: Error) =>
            log.warn("settling an undeliverable entry failed; the sweep retries it", { error_name: err.name }),
          )
          .finally(() => running.delete(run));
        running.add(run);
      },
      lost,
    }),
    // A message turned terminal: its A2A push configs (lib/a2a/push.ts) push the final task now.
    notificationListener().subscribe(TERMINAL_CHANNEL, {
      payload(key) {
        if (!key.startsWith(MESSAGE_ID_PREFIX)) return;
        const run = pushDueA2a(key)
          .then(() => undefined)
          .catch((err: Error) => log.warn("an a2a push failed; the sweep retries it", { error_name: err.name }))
          .finally(() => running.delete(run));
        running.add(run);
      },
      lost,
    }),
  ];
  await notificationListener().ready();
  return {
    async stop() {
      for (const unsubscribe of unsubscribes) unsubscribe();
      waiting.length = 0; // not started: the sweep of the next worker finds them
      await Promise.allSettled([...running]);
    },
  };
}

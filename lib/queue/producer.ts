/**
 * Process-wide queue producers, one per queue name, kept on globalThis (Next bundles share it).
 * BullMQ and its store client load with the first producer, not with the module: a web process
 * that never enqueues (a read-only replica of the API, a test's Hub) starts without them.
 */
import { processWide } from "../process-wide";
import type { QueueName } from "./names";
import type { makeQueue } from "./queues";

type Made = ReturnType<typeof makeQueue>;

function registry(): Map<QueueName, Promise<Made>> {
  return processWide("ma2h.queues", () => new Map<QueueName, Promise<Made>>());
}

export async function producer(name: QueueName): Promise<Made["queue"]> {
  const map = registry();
  let q = map.get(name);
  if (!q) {
    q = import("./queues").then(({ makeQueue }) => makeQueue(name));
    map.set(name, q);
    // A producer that failed to start is not kept: the next enqueue tries again.
    q.catch(() => map.get(name) === q && map.delete(name));
  }
  return (await q).queue;
}

export async function closeProducers(): Promise<void> {
  const map = registry();
  const all = [...map.values()];
  map.clear();
  await Promise.allSettled(all.map(async (q) => (await q).close()));
}

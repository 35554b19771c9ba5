/** Process-wide queue producers, one per queue name, kept on globalThis (Next bundles share it). */
import { processWide } from "../process-wide";
import { makeQueue, type QueueName } from "./queues";

function registry(): Map<QueueName, ReturnType<typeof makeQueue>> {
  return processWide("ma2h.queues", () => new Map<QueueName, ReturnType<typeof makeQueue>>());
}

export function producer(name: QueueName) {
  const map = registry();
  let q = map.get(name);
  if (!q) {
    q = makeQueue(name);
    map.set(name, q);
  }
  return q.queue;
}

export async function closeProducers(): Promise<void> {
  const map = registry();
  const all = [...map.values()];
  map.clear();
  await Promise.allSettled(all.map((q) => q.close()));
}

/** Process-wide queue producers, one per queue name, kept on globalThis (Next bundles share it). */
import { makeQueue, type QueueName } from "./queues";

const KEY = Symbol.for("ma2h.queues");
type Holder = { [KEY]?: Map<QueueName, ReturnType<typeof makeQueue>> };

function registry(): Map<QueueName, ReturnType<typeof makeQueue>> {
  const g = globalThis as Holder;
  const existing = g[KEY] ?? new Map();
  g[KEY] = existing;
  return existing;
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

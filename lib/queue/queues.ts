/**
 * BullMQ queue factory. With REDIS_URL, queues live on Redis (ioredis); without it, on BullMQ's
 * PostgreSQL backend in the Hub's own database, so one PostgreSQL is all the Hub needs. Either way
 * jobs carry row ids only and PostgreSQL rows stay the source of truth (§3.1): sweeps rebuild any
 * job a store forgot.
 */
import { Queue, Worker, createPostgresBackend, type Processor } from "bullmq";
import { Redis } from "ioredis";
import { env } from "../env";
import { log } from "../log";
import { type QueueName, queuePrefix } from "./names";

/**
 * Without an `error` listener BullMQ prints store errors raw with console.error (not JSON, and a
 * driver error can quote query parameters); log them by name and code only (docs/decisions/operations-and-performance.md).
 */
function logErrors<E extends { on(event: "error", fn: (err: Error) => void): unknown }>(
  emitter: E,
  queue: QueueName,
  role: string,
): E {
  emitter.on("error", (err: Error) =>
    log.warn("queue store error", {
      queue,
      role,
      error_name: err.name,
      error_code: (err as { code?: unknown }).code ?? null,
    }),
  );
  return emitter;
}

function redisConnection(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null });
}

export function makeQueue(name: QueueName): { queue: Queue; close: () => Promise<void> } {
  const e = env();
  if (e.REDIS_URL) {
    const connection = redisConnection(e.REDIS_URL);
    const queue = logErrors(new Queue(name, { connection, prefix: queuePrefix() }), name, "queue");
    return {
      queue,
      close: async () => {
        await queue.close();
        await connection.quit().catch(() => {});
      },
    };
  }
  const queue = logErrors(
    new Queue(
      name,
      { connection: { connectionString: e.DATABASE_URL, migrate: true, max: 2 } },
      createPostgresBackend,
    ) as unknown as Queue,
    name,
    "queue",
  );
  return { queue, close: () => queue.close() };
}

export function makeWorker<T>(
  name: QueueName,
  processor: Processor<T>,
  concurrency = 4,
): { worker: Worker<T>; close: () => Promise<void> } {
  const e = env();
  if (e.REDIS_URL) {
    const connection = redisConnection(e.REDIS_URL);
    const worker = logErrors(
      new Worker<T>(name, processor, { connection, concurrency, prefix: queuePrefix() }),
      name,
      "worker",
    );
    return {
      worker,
      close: async () => {
        await worker.close();
        await connection.quit().catch(() => {});
      },
    };
  }
  const worker = logErrors(
    new Worker(
      name,
      processor as Processor,
      { connection: { connectionString: e.DATABASE_URL, migrate: true, max: 4 }, concurrency },
      createPostgresBackend,
    ) as unknown as Worker<T>,
    name,
    "worker",
  );
  return { worker, close: () => worker.close() };
}

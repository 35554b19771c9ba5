/**
 * BullMQ queue factory. With REDIS_URL, queues live on Redis (ioredis); without it, on BullMQ's
 * PostgreSQL backend in the Hub's own database, so one PostgreSQL is all the Hub needs. Either way
 * jobs carry row ids only and PostgreSQL rows stay the source of truth (§3.1): sweeps rebuild any
 * job a store forgot.
 */
import { Queue, Worker, createPostgresBackend, type Processor } from "bullmq";
import { Redis } from "ioredis";
import { env } from "../env";

export const QUEUE = {
  expire: "message-expire",
  push: "delivery-push",
} as const;

export type QueueName = (typeof QUEUE)[keyof typeof QUEUE];

function redisConnection(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null });
}

export function makeQueue(name: QueueName): { queue: Queue; close: () => Promise<void> } {
  const e = env();
  if (e.REDIS_URL) {
    const connection = redisConnection(e.REDIS_URL);
    const queue = new Queue(name, { connection });
    return { queue, close: async () => { await queue.close(); await connection.quit().catch(() => {}); } };
  }
  const queue = new Queue(name, { connection: { connectionString: e.DATABASE_URL, migrate: true, max: 2 } }, createPostgresBackend) as unknown as Queue;
  return { queue, close: () => queue.close() };
}

export function makeWorker<T>(name: QueueName, processor: Processor<T>, concurrency = 4): { worker: Worker<T>; close: () => Promise<void> } {
  const e = env();
  if (e.REDIS_URL) {
    const connection = redisConnection(e.REDIS_URL);
    const worker = new Worker<T>(name, processor, { connection, concurrency });
    return { worker, close: async () => { await worker.close(); await connection.quit().catch(() => {}); } };
  }
  const worker = new Worker(
    name,
    processor as Processor,
    { connection: { connectionString: e.DATABASE_URL, migrate: true, max: 4 }, concurrency },
    createPostgresBackend,
  ) as unknown as Worker<T>;
  return { worker, close: () => worker.close() };
}

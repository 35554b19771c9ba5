/**
 * The queues' names and their key prefix: what code that does not run a queue (the jobs table, the
 * failed-authentication throttle, metrics) needs, without loading BullMQ (./queues.ts).
 */
import { createHash } from "node:crypto";
import { env } from "../env";

export const QUEUE = {
  expire: "message-expire",
  push: "delivery-push",
  notify: "notifications",
} as const;

export type QueueName = (typeof QUEUE)[keyof typeof QUEUE];

/**
 * Redis key prefix per Hub database: two Hubs (or test runs) sharing one Redis never take each
 * other's jobs. Override with MA2H_QUEUE_PREFIX.
 */
export function queuePrefix(): string {
  const e = env();
  return e.MA2H_QUEUE_PREFIX ?? `ma2h-${createHash("sha256").update(e.DATABASE_URL).digest("hex").slice(0, 10)}`;
}

/**
 * The job contracts: each job's queue, name and payload schema, defined once. The enqueue side
 * (./enqueue.ts) and the handler registry (lib/jobs/registry.ts) both take them from here. Payloads
 * carry row ids only: PostgreSQL rows stay the source of truth and a lost job is rebuilt by a sweep
 * (§3.1).
 */
import { z } from "zod";
import { QUEUE, type QueueName } from "./names";

export interface JobContract<S extends z.ZodType> {
  queue: QueueName;
  name: string;
  schema: S;
}

/** §7: expire one open ask/task strictly after its `expires_at`. */
export const EXPIRE_JOB = {
  queue: QUEUE.expire,
  name: "message.expire",
  schema: z.object({ messageId: z.string().startsWith("msg_") }),
} satisfies JobContract<z.ZodType>;

/** §8.3: one attempt at one push obligation. */
export const PUSH_JOB = {
  queue: QUEUE.push,
  name: "delivery.push",
  schema: z.object({ deliveryId: z.string().startsWith("dlv_") }),
} satisfies JobContract<z.ZodType>;

/**
 * Notifications: fan one new ask/task out to its recipients and send what is due. The payload
 * names the message; the work is re-derived from its outbox and notification rows every time.
 */
export const NOTIFY_JOB = {
  queue: QUEUE.notify,
  name: "notifications.fanout",
  schema: z.object({ messageId: z.string().startsWith("msg_") }),
} satisfies JobContract<z.ZodType>;

export type JobPayload<J extends JobContract<z.ZodType>> = z.infer<J["schema"]>;

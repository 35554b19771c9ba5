/**
 * The `message.expire` job: a delayed job per expiring message, named by its row id. Losing it is
 * harmless — the worker's sweep (workers/main.ts) expires anything overdue from PostgreSQL.
 */
import { z } from "zod";
import { log } from "../log";
import { clock } from "../clock";
import { db } from "../db";
import { expireMessage } from "../messages/expiry";
import { producer } from "./producer";
import { QUEUE } from "./queues";

export const expireJobSchema = z.object({ messageId: z.string().startsWith("msg_") });
export type ExpireJob = z.infer<typeof expireJobSchema>;

/** Best effort: a failure is logged and left to the sweep. */
export async function scheduleExpiry(messageId: string, expiresAt: Date): Promise<void> {
  // +1 ms: expiry wins only strictly after expires_at (§7).
  const delay = Math.max(0, expiresAt.getTime() + 1 - clock.now().getTime());
  try {
    await producer(QUEUE.expire).add("message.expire", { messageId } satisfies ExpireJob, {
      jobId: `expire-${messageId}`,
      delay,
      removeOnComplete: true,
      removeOnFail: 1000,
      attempts: 5,
      backoff: { type: "exponential", delay: 1000 },
    });
  } catch (err) {
    log.warn("could not schedule expiry job; the sweep will expire it", { message_id: messageId, error_name: (err as Error).name });
  }
}

export async function handleExpireJob(data: unknown): Promise<void> {
  const { messageId } = expireJobSchema.parse(data);
  const row = await db().message.findUnique({ where: { id: messageId }, select: { status: true, expiresAt: true } });
  if (!row || row.status !== "open" || !row.expiresAt) return;
  // A timer may fire a hair early; expiry must land strictly after expires_at, so wait it out.
  const early = row.expiresAt.getTime() + 1 - clock.now().getTime();
  if (early > 0) await new Promise((r) => setTimeout(r, early));
  await expireMessage(messageId);
}

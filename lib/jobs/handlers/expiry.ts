/**
 * The `message.expire` job: a delayed job per expiring message, named by its row id. Losing it is
 * harmless — the expiry sweep (lib/jobs/sweeps.ts) expires anything overdue from PostgreSQL (§3.1).
 */
import { clock } from "../../clock";
import { db } from "../../db";
import { expireMessage } from "../../messages/expiry";
import { EXPIRE_JOB } from "../../queue/jobs";
import { defineJob } from "../define";

export const expireJob = defineJob(EXPIRE_JOB, 4, async ({ messageId }) => {
  const row = await db().message.findUnique({ where: { id: messageId }, select: { status: true, expiresAt: true } });
  if (row?.status !== "open" || !row.expiresAt) return;
  // A timer may fire a hair early; expiry must land strictly after expires_at (§7), so wait it out.
  const early = row.expiresAt.getTime() + 1 - clock.now().getTime();
  if (early > 0) await new Promise((r) => setTimeout(r, early));
  await expireMessage(messageId);
});

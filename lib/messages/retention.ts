/**
 * §8.2 retention: a terminal message (a resolved ask/task, a delivered notify) stays pullable for
 * `retention_days`, then is deleted. A tombstone keeps its id, owner and purge time so the
 * submitter reads `410 gone` and everyone else `404`. Open messages are never purged.
 */
import { clock } from "../clock";
import { db } from "../db";
import { limits } from "../env";

export async function purgeExpiredRetention(now: Date = clock.now(), batch = 500): Promise<number> {
  const cutoff = new Date(now.getTime() - limits().retentionDays * 86_400_000);
  let total = 0;
  for (;;) {
    const due = await db().message.findMany({
      where: { terminalAt: { lt: cutoff }, status: { not: "open" } },
      select: { id: true, accountId: true, agentRowId: true },
      take: batch,
    });
    if (due.length === 0) return total;
    await db().$transaction(async (tx) => {
      await tx.messageTombstone.createMany({
        data: due.map((m) => ({ id: m.id, accountId: m.accountId, agentRowId: m.agentRowId, purgedAt: now })),
        skipDuplicates: true,
      });
      await tx.auditEvent.createMany({
        data: due.map((m) => ({ accountId: m.accountId, messageId: m.id, actor: "system:retention", event: "message.purged", at: now })),
      });
      await tx.message.deleteMany({ where: { id: { in: due.map((m) => m.id) } } });
    });
    total += due.length;
    if (due.length < batch) return total;
  }
}

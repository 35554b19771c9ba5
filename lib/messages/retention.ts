/**
 * §8.2 retention: a terminal message (a resolved ask/task, a delivered notify) stays pullable for
 * `retention_days`, then is deleted. A tombstone keeps its id, owner and purge time so the
 * submitter reads `410 gone` and everyone else `404`, and a short summary — type, title, terminal
 * status, who resolved it and when, and whether the answer never reached the agent (§14.2 `expired`)
 * — so a seat holder's `/inbox/<id>` says what happened (lib/inbox/tombstone.ts). No value, comment
 * or body survives the purge. Open messages are never purged.
 */
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit } from "../audit/write";
import { clock } from "../clock";
import { db } from "../db";
import { limits } from "../env";
import { isV05 } from "@ma2h/protocol/wire";
import { lockUndeliveredResolutions } from "./retention.sql";

export async function purgeExpiredRetention(now: Date = clock.now(), batch = 500): Promise<number> {
  const cutoff = new Date(now.getTime() - limits().retentionDays * 86_400_000);
  let total = 0;
  for (;;) {
    const due = await db().message.findMany({
      where: { terminalAt: { lt: cutoff }, status: { not: "open" } },
      select: {
        id: true,
        accountId: true,
        agentRowId: true,
        type: true,
        title: true,
        status: true,
        resolution: { select: { actor: true, resolvedAt: true } },
      },
      take: batch,
    });
    if (due.length === 0) return total;
    await db().$transaction(async (tx) => {
      // §14.2 (v0.5): a response track that never reached delivered-to-agent terminates `expired`.
      // The row lock makes a concurrent pull or push stamp wait for this commit and then find
      // nothing (delivery-track.ts), so `expired` is never recorded for an answer that was seen.
      const undelivered = await lockUndeliveredResolutions(
        tx,
        due.map((m) => m.id),
      );
      const expired = undelivered.filter((r) => isV05(r.ma2h_version));
      if (expired.length > 0) {
        await writeAudit(
          tx,
          expired.map((r) => ({
            accountId: r.account_id,
            messageId: r.message_id,
            actor: "system:retention",
            event: AUDIT_EVENT.responseDeliveryExpired,
            // The track's terminal by name, so an audit export (JSON Lines) says it without
            // knowing event kinds.
            detail: { resolution_id: r.resolution_id, delivery_state: "expired" },
            at: now,
          })),
        );
      }
      const neverReached = new Set(expired.map((r) => r.message_id));
      await tx.messageTombstone.createMany({
        data: due.map((m) => ({
          id: m.id,
          accountId: m.accountId,
          agentRowId: m.agentRowId,
          purgedAt: now,
          type: m.type,
          title: m.title,
          status: m.status,
          actor: m.resolution?.actor ?? null,
          resolvedAt: m.resolution?.resolvedAt ?? null,
          deliveryExpiredAt: neverReached.has(m.id) ? now : null,
        })),
        skipDuplicates: true,
      });
      await writeAudit(
        tx,
        due.map((m) => ({
          accountId: m.accountId,
          messageId: m.id,
          actor: "system:retention",
          event: AUDIT_EVENT.messagePurged,
          at: now,
        })),
      );
      await tx.message.deleteMany({ where: { id: { in: due.map((m) => m.id) } } });
    });
    total += due.length;
    if (due.length < batch) return total;
  }
}

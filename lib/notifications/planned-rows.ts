/**
 * The notification rows of one item for some people, of one kind, due at one time — on each
 * channel that can reach the person (channels.ts `reachable`), each as that person's delivery plan
 * for that channel allows (preferences.ts `deliveryPlan`: dropped, held past quiet
 * hours, or kept for a digest). The one place such rows are built: the fan-out's `new` rows
 * (fanout.ts) and the reminder and escalation rows (reminders.ts).
 */
import type { Prisma } from "../generated/prisma/client";
import { mintId } from "@ma2h/protocol/ids";
import { senderFor } from "./channels";
import { CHANNELS, type Kind } from "./kinds";
import { deliveryPlan, type PlanItem } from "./preferences";

export async function plannedRows(
  message: { id: string; accountId: string },
  userIds: readonly string[],
  kind: Kind,
  item: PlanItem,
  dueAt: Date,
  now: Date,
): Promise<Prisma.NotificationCreateManyInput[]> {
  const rows: Prisma.NotificationCreateManyInput[] = [];
  for (const channel of CHANNELS) {
    const reachable = await senderFor(channel).reachable(message.accountId, userIds);
    for (const userId of userIds) {
      if (!reachable.has(userId)) continue;
      const plan = await deliveryPlan(userId, message.accountId, channel, kind, item, dueAt);
      if (!plan.send) continue;
      rows.push({
        id: mintId("notification"),
        messageId: message.id,
        userId,
        channel,
        kind,
        digest: plan.digest,
        nextAttemptAt: plan.at,
        createdAt: now,
        updatedAt: now,
      });
    }
  }
  return rows;
}

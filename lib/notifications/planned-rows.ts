/**
 * The notification rows of one item for some people, of one kind, due at one time — on each
 * channel that can reach the person (channels.ts `reachable`), each as that person's delivery plan
 * for that channel allows (preferences.ts `planDelivery`: dropped, held past quiet hours, or kept for
 * a digest). The one place such rows are built: the fan-out's `new` rows (fanout.ts), the reminder
 * and escalation rows (reminders.ts), the assignment and standing-rule rows.
 *
 * What the plans read is read once for all the people (`planningContext`): the account's defaults,
 * every person's own choices in one statement, and each channel's reach in one call per channel —
 * a fan-out plans its `new`, reminder and escalation rows from one context (`rowsFor`).
 */
import { db } from "../db";
import type { Prisma } from "../generated/prisma/client";
import { mintId } from "@ma2h/protocol/ids";
import { senderFor } from "./channels";
import { CHANNELS, type Channel, type Kind } from "./kinds";
import {
  BUILT_IN,
  merge,
  type PartialPreferences,
  type PlanItem,
  planDelivery,
  type Preferences,
  readPartial,
} from "./preferences";
import { accountNotificationSettings } from "./settings";

/** What planning reads of an account and some of its people. */
export interface PlanningContext {
  /** The account's defaults over the built-in ones. */
  defaults: Preferences;
  /** Each person's own stored choices (absent: none). */
  own: Map<string, PartialPreferences>;
  /** Per channel, the people it reaches. */
  reach: Record<Channel, Set<string>>;
}

/**
 * Reads the context for these people: `defaults` is the account's stored defaults when the caller
 * has read its settings row already (the fan-out does), else it is read here.
 */
export async function planningContext(
  accountId: string,
  userIds: readonly string[],
  storedDefaults?: unknown,
): Promise<PlanningContext> {
  const ids = [...new Set(userIds)];
  const [defaults, own, ...reaches] = await Promise.all([
    storedDefaults === undefined
      ? accountNotificationSettings(accountId).then((s) => s.defaults)
      : Promise.resolve(storedDefaults),
    ids.length === 0
      ? Promise.resolve([])
      : db().notificationPreference.findMany({
          where: { accountId, userId: { in: ids } },
          select: { userId: true, prefs: true },
        }),
    ...CHANNELS.map((c) =>
      ids.length === 0 ? Promise.resolve(new Set<string>()) : senderFor(c).reachable(accountId, ids),
    ),
  ]);
  return {
    defaults: merge(BUILT_IN, readPartial(defaults)),
    own: new Map(own.map((r) => [r.userId, readPartial(r.prefs)])),
    reach: Object.fromEntries(CHANNELS.map((c, i) => [c, reaches[i] as Set<string>])) as Record<Channel, Set<string>>,
  };
}

/** The rows, from a context read for (at least) these people: no reads. */
export function rowsFor(
  ctx: PlanningContext,
  messageId: string,
  userIds: readonly string[],
  kind: Kind,
  item: PlanItem,
  dueAt: Date,
  now: Date,
): Prisma.NotificationCreateManyInput[] {
  const rows: Prisma.NotificationCreateManyInput[] = [];
  const prefs = new Map<string, Preferences>();
  for (const channel of CHANNELS) {
    const reachable = ctx.reach[channel];
    for (const userId of userIds) {
      if (!reachable.has(userId)) continue;
      let p = prefs.get(userId);
      if (!p) {
        p = merge(ctx.defaults, ctx.own.get(userId) ?? {});
        prefs.set(userId, p);
      }
      const plan = planDelivery(p, channel, kind, item, dueAt);
      if (!plan.send) continue;
      rows.push({
        id: mintId("notification"),
        messageId,
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

export async function plannedRows(
  message: { id: string; accountId: string },
  userIds: readonly string[],
  kind: Kind,
  item: PlanItem,
  dueAt: Date,
  now: Date,
): Promise<Prisma.NotificationCreateManyInput[]> {
  const ctx = await planningContext(message.accountId, userIds);
  return rowsFor(ctx, message.id, userIds, kind, item, dueAt, now);
}

/**
 * A person's notification preferences in one account (#16, docs/notifications.md): the person's own
 * choices over the account's defaults over the built-in ones, and the one decision every sender
 * asks — should this person be told of this item on this channel, and when?
 *
 * STUB (to be completed by the preferences work): today everything is sent at once.
 */
import type { Channel, Kind } from "./kinds";

export interface PlanItem {
  type: "notify" | "ask" | "task";
  priority: "low" | "normal" | "high" | "urgent";
}

export type DeliveryPlan =
  | { send: false; reason: string }
  /** `at`: when to send (later than now inside quiet hours); `digest`: hold for the digest mail. */
  | { send: true; at: Date; digest: boolean };

/** The decision for one person, one item, one channel and kind, at `now`. */
export async function deliveryPlan(
  _userId: string,
  _accountId: string,
  _channel: Channel,
  _kind: Kind,
  item: PlanItem,
  now: Date,
): Promise<DeliveryPlan> {
  if (item.type === "notify") return { send: false, reason: "notify_off" };
  return { send: true, at: now, digest: false };
}

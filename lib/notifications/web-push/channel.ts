/**
 * The browser push channel's sender (docs/notifications.md "Browser push"). `reachable`: the
 * people with at least one subscribed device. `send`: one push to each of the person's devices
 * (device-send.ts); the row is `sent` when at least one device's push service accepted it. A device
 * whose push service answers `404`/`410` is forgotten; that is not the row's failure if another
 * device got the push. With no device accepting, a retryable answer from any of them (`429`, 5xx,
 * a timeout) retries the row with backoff (claims.ts), and otherwise the row fails. A `confirm` ask or
 * a two-option `select` gets action buttons: single-use tokens minted per attempt (answer-tokens.ts).
 */
import { mintPushActions } from "../answer-tokens";
import { clock } from "../../clock";
import { db } from "../../db";
import type { ChannelSender } from "../sender";
import type { SendResult } from "../send-result";
import { type DeviceOutcome, pushToDevice } from "./device-send";
import { pushPayload } from "./payload";
import { forgetGoneDevice } from "./subscriptions";
import { vapidKeys } from "./vapid";

/** What the row comes to, from each device's outcome. */
export function rowResult(outcomes: readonly DeviceOutcome[]): SendResult {
  const accepted = outcomes.find((o) => o.kind === "accepted");
  if (accepted) return { ok: true, responseCode: accepted.status };
  const transient = outcomes.find((o) => o.kind === "transient");
  if (transient?.kind === "transient")
    return { ok: false, transient: true, errorClass: transient.errorClass, responseCode: transient.status };
  const permanent = outcomes.find((o) => o.kind === "permanent");
  if (permanent?.kind === "permanent")
    return { ok: false, transient: false, errorClass: permanent.errorClass, responseCode: permanent.status };
  const gone = outcomes.find((o) => o.kind === "gone");
  return {
    ok: false,
    transient: false,
    errorClass: gone ? "push_gone" : "push_no_device",
    responseCode: gone?.kind === "gone" ? gone.status : null,
  };
}

export const pushSender: ChannelSender = {
  async reachable(_accountId, userIds) {
    const rows = await db().pushSubscription.findMany({
      where: { userId: { in: [...userIds] } },
      select: { userId: true },
      distinct: ["userId"],
    });
    return new Set(rows.map((r) => r.userId));
  },
  async send({ row, message, envelope, mayResolve, routing, now }) {
    const devices = await db().pushSubscription.findMany({
      where: { userId: row.userId },
      select: { id: true, endpoint: true, p256dh: true, authSealed: true },
    });
    if (devices.length === 0) return rowResult([]);
    const keys = await vapidKeys();
    // Action buttons only for a person who may resolve the item, and only when its approval routing
    // allows one-click answers outside the Hub (`email_answers`, docs/policies.md) — as the mail's links.
    const actions =
      mayResolve && routing?.email_answers !== false ? await mintPushActions(row, message, envelope, now) : [];
    const payload = pushPayload(message, actions);
    const outcomes = await Promise.all(
      devices.map(async (d) => {
        const outcome = await pushToDevice(d, payload, keys, message, now);
        if (outcome.kind === "gone") await forgetGoneDevice(d.id, d.endpoint);
        if (outcome.kind === "accepted")
          await db().pushSubscription.updateMany({ where: { id: d.id }, data: { lastUsedAt: clock.now() } });
        return outcome;
      }),
    );
    return rowResult(outcomes);
  },
};

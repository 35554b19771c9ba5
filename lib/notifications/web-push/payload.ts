/**
 * What one push carries and how the push service is asked to treat it. The payload is only
 * `{id, title, priority}` and, for an ask answered with a button, its `actions` — the service worker (public/sw.js) builds the notification and the
 * `/inbox/<id>` it opens from them. A `sensitive` item (§9.6) keeps its title: the title is what the
 * inbox list and the mail subject show too, the body and context never leave the Hub this way, and
 * the payload is end-to-end encrypted to the browser (RFC 8291), so the push service reads nothing
 * (docs/decisions/notifications.md "Browser push: the payload").
 */
import type { Urgency } from "web-push";

export interface PushPayload {
  id: string;
  title: string;
  priority: string;
  /**
   * The notification's action buttons (docs/notifications.md "Answering from the notification"): one
   * per option of a `confirm` ask or a two-option `select`, each with its single-use token
   * (answer-tokens.ts). Absent for everything else: that notification only opens the item.
   */
  actions?: { value: string; label: string; token: string }[];
}

/** A button's label is short on every platform: a long option label is cut. */
const ACTION_LABEL_MAX = 40;

export function pushPayload(
  message: { id: string; title: string; priority: string },
  actions: readonly { value: string; label: string; token: string }[] = [],
): PushPayload {
  const payload: PushPayload = { id: message.id, title: message.title, priority: message.priority };
  if (actions.length > 0)
    payload.actions = actions.map((a) => ({
      value: a.value,
      label: a.label.length > ACTION_LABEL_MAX ? `${a.label.slice(0, ACTION_LABEL_MAX - 1)}…` : a.label,
      token: a.token,
    }));
  return payload;
}

/** RFC 8030 §5.3 Urgency from the item's priority: urgent wakes the device, low may wait. */
export function urgencyFor(priority: string): Urgency {
  if (priority === "urgent") return "high";
  if (priority === "low") return "low";
  return "normal";
}

/** The longest a push service keeps an undelivered push (RFC 8030 §5.2 TTL): one day. */
export const MAX_TTL_SECONDS = 24 * 60 * 60;

/** TTL: until the item expires (a push about an expired item is noise), at most a day. */
export function ttlSeconds(expiresAt: Date | null, now: Date): number {
  if (!expiresAt) return MAX_TTL_SECONDS;
  return Math.max(0, Math.min(MAX_TTL_SECONDS, Math.floor((expiresAt.getTime() - now.getTime()) / 1000)));
}

/**
 * What one push carries and how the push service is asked to treat it. The payload is only
 * `{id, title, priority}` — the service worker (public/sw.js) builds the notification and the
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
}

export function pushPayload(message: { id: string; title: string; priority: string }): PushPayload {
  return { id: message.id, title: message.title, priority: message.priority };
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

/**
 * What follows a committed terminal transition outside the transaction: the first push attempt is
 * enqueued at once (within 2 s of the commit). Best effort by design — the delivery sweep re-derives
 * every pending obligation from PostgreSQL, so a failure here delays a push, never loses it.
 */
import { clock } from "../clock";
import { db } from "../db";
import { enqueueNotify, enqueuePush } from "../queue/enqueue";
import type { CommitResult } from "./lifecycle";

export async function afterTerminal(result: CommitResult): Promise<void> {
  if (result.won && result.deliveryId) await enqueuePush(result.deliveryId, clock.now(), 1);
  // #17: the item's Slack posts now show a stale status; the notification job updates them (the
  // notification sweep is the backstop). Woken only for an item that was posted to Slack.
  if (result.won && result.messageId && (await db().slackPost.count({ where: { messageId: result.messageId } })) > 0)
    await enqueueNotify(result.messageId, "terminal");
}

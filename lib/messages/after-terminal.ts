/**
 * What follows a committed terminal transition outside the transaction: the first push attempt is
 * enqueued at once (within 2 s of the commit), and the item's Slack posts are woken for an update. Best effort by design — the delivery sweep re-derives
 * every pending obligation from PostgreSQL, so a failure here delays a push, never loses it.
 */
import { clock } from "../clock";
import { db } from "../db";
import { log } from "../log";
import { enqueueNotify, enqueuePush } from "../queue/enqueue";
import type { CommitResult } from "./lifecycle";

export async function afterTerminal(result: CommitResult): Promise<void> {
  if (result.won && result.deliveryId) await enqueuePush(result.deliveryId, clock.now(), 1);
  // #17: the item's Slack posts now show a stale status; the notification job updates them (the
  // notification sweep is the backstop). Woken only for an item that was posted to Slack.
  if (result.won && result.messageId) await wakeSlackRefresh(result.messageId);
}

/**
 * Best effort like the rest: the transition has committed, so a failure here (a query timing out
 * under load) must not turn the caller's committed answer into an error — it is logged, and the
 * notification sweep finds the stale posts anyway.
 */
async function wakeSlackRefresh(messageId: string): Promise<void> {
  try {
    if ((await db().slackPost.count({ where: { messageId } })) > 0) await enqueueNotify(messageId, "terminal");
  } catch (err) {
    log.warn("could not wake the Slack refresh; the sweep will", {
      message_id: messageId,
      error_name: (err as Error).name,
    });
  }
}

/**
 * What follows a committed terminal transition outside the transaction: the resolution is counted
 * (metrics — here, so a rolled-back transition never is), and the item's Slack posts are woken for
 * an update. The first push attempt needs nothing here — the transition's own NOTIFY wakes
 * the worker (lib/jobs/wake.ts). Best effort by design (enqueue.ts logs a failure): the
 * sweeps re-derive every pending obligation from PostgreSQL, so a failure delays work, never loses it.
 */
import { db } from "../db";
import { metrics } from "../metrics/registry";
import { enqueueNotify } from "../queue/enqueue";
import { recordHumanWait } from "../telemetry/spans";
import type { CommitResult } from "./lifecycle";

export async function afterTerminal(result: CommitResult): Promise<void> {
  if (result.won && result.resolution) metrics().resolutions.inc({ outcome: result.resolution });
  // The item's Slack posts and Teams cards now show a stale status; the notification job updates them
  // (the notification sweep is the backstop). Only for an item that was posted, which the §7
  // statement reports (lifecycle.ts).
  if (result.won && result.messageId && result.slackPosted) await enqueueNotify(result.messageId, "terminal");
  // The agent's trace shows how long a person took (a no-op while tracing is off).
  if (result.won && result.messageId && result.resolution && result.actor && result.at)
    await recordHumanWait({
      messageId: result.messageId,
      resolution: result.resolution,
      actor: result.actor,
      defaulted: result.defaulted ?? false,
      at: result.at,
    });
}

/**
 * After a quorum's vote that left the ask open, or a withdrawal (lib/messages/approvals.ts): the
 * item's Slack posts and Teams cards show a stale approvals line, so the notification job is woken to
 * update them (slack/posts.ts `refreshApprovals`, teams/posts.ts) — only for an item posted, which
 * the vote's statement reports (`posted`; read here when not given). Best effort: a lost wake-up
 * leaves the count stale until the next vote or the settle.
 */
export async function afterVote(messageId: string, handle: string, at: Date, posted?: boolean): Promise<void> {
  const live =
    posted ??
    (await db().slackPost.count({ where: { messageId, status: "posted" } })) +
      (await db().teamsPost.count({ where: { messageId, status: "posted" } })) >
      0;
  if (live) await enqueueNotify(messageId, `vote-${handle}-${at.getTime()}`);
}

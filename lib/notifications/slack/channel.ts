/**
 * The Slack channel's sender (docs/notifications.md "Slack"): a direct message from the
 * account's connected Slack app to the person's bound Slack user (bindings.ts), as a Block Kit
 * message (blocks.ts) with answer buttons only when the person may resolve the item; the posted
 * `(channel, ts)` is recorded (posts.ts) so the message is updated when the item settles.
 * `reachable`: people with a binding while the account is connected with direct messages on.
 * Posting to the user id opens (or reuses) the app's DM with that user, so no `im:write` scope and
 * no `conversations.open` round trip are needed.
 */
import { clock } from "../../clock";
import { db } from "../../db";
import { env } from "../../env";
import type { ChannelSender } from "../sender";
import { itemUrl } from "../text";
import { itemMessage, KIND_NOTES } from "./blocks";
import { openConnection } from "./connection";
import { slackUsersOf } from "./bindings";
import { openStateOf, postItemOf } from "./item-view";
import { postMessage, recordDirectMessage, refreshPosts } from "./posts";

export const slackSender: ChannelSender = {
  async reachable(accountId, userIds) {
    const conn = await db().slackConnection.findUnique({ where: { accountId }, select: { directMessages: true } });
    if (!conn?.directMessages) return new Set<string>();
    return new Set((await slackUsersOf(accountId, userIds)).keys());
  },
  async send({ row, message, kind, mayResolve, routing }) {
    const conn = await openConnection(message.accountId);
    if (!conn?.directMessages) return { ok: false, transient: false, errorClass: "slack_off", responseCode: null };
    const slackUser = (await slackUsersOf(message.accountId, [row.userId])).get(row.userId);
    if (!slackUser) return { ok: false, transient: false, errorClass: "slack_unbound", responseCode: null };
    const state = await openStateOf(message.id, routing);
    const post = itemMessage(postItemOf(message, routing), {
      inboxUrl: itemUrl(env().publicUrl, message.id),
      mayResolve,
      state,
      note: KIND_NOTES[kind],
    });
    const result = await postMessage(conn.botToken, slackUser, post);
    if (!result.ok) return result;
    await recordDirectMessage(
      {
        accountId: message.accountId,
        messageId: message.id,
        notificationId: row.id,
        channel: result.channel,
        ts: result.ts,
        approvals: state.approvals ?? null,
      },
      clock.now(),
    );
    // Settled while we posted: the just-recorded post is updated at once rather than at the sweep.
    await refreshPosts(message.id);
    return { ok: true, responseCode: 200 };
  },
};

/**
 * The senders of the notification channels (kinds.ts `CHANNELS`): the one place that knows which
 * code tells a person on which channel. The machinery around them — rows, preferences, claims,
 * retries, the attempt log — is shared (fanout.ts, send.ts, claims.ts); a sender only answers two
 * questions:
 * - `reachable`: which of these people can be told on this channel in this account at all (email:
 *   everyone while SMTP is configured; Slack: people who bound a Slack user while the account's
 *   Slack app is connected with direct messages on; push: people with a subscribed device);
 * - `send`: one attempt at one claimed row, after send.ts has re-checked that the item is open and
 *   the person may still be told.
 */
import { emailSender } from "./email-channel";
import type { Channel } from "./kinds";
import type { ChannelSender } from "./sender";
import { slackSender } from "./slack/channel";
import { pushSender } from "./web-push/channel";

export type { ChannelSender, SendContext } from "./sender";

const SENDERS: Record<Channel, ChannelSender> = { email: emailSender, slack: slackSender, push: pushSender };

export function senderFor(channel: Channel): ChannelSender {
  return SENDERS[channel];
}

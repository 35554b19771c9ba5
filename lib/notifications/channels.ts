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
import type { envelopeOf } from "../messages/record";
import { emailSender } from "./email-channel";
import type { Channel, Kind } from "./kinds";
import { pushSender } from "../web-push/channel";
import type { SendResult } from "./send-result";
import { slackSender } from "../slack/channel";

/** The claimed row and what send.ts loaded for it. */
export interface SendContext {
  row: {
    id: string;
    messageId: string;
    userId: string;
    channel: string;
    attempts: number;
    batchId: string | null;
  };
  user: { email: string };
  message: {
    id: string;
    accountId: string;
    title: string;
    priority: string;
    sensitive: boolean;
    status: string;
    envelope: string;
    createdAt: Date;
    expiresAt: Date | null;
  };
  envelope: ReturnType<typeof envelopeOf>;
  kind: Kind;
  /** The person may resolve the item (so answer links/buttons may be offered). */
  mayResolve: boolean;
  now: Date;
}

export interface ChannelSender {
  reachable(accountId: string, userIds: readonly string[]): Promise<Set<string>>;
  send(ctx: SendContext): Promise<SendResult>;
}

const SENDERS: Record<Channel, ChannelSender> = { email: emailSender, slack: slackSender, push: pushSender };

export function senderFor(channel: Channel): ChannelSender {
  return SENDERS[channel];
}

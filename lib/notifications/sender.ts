/**
 * What a channel's sender is (channels.ts is the registry of them). A leaf: the senders import
 * these types, and the registry imports the senders.
 */
import type { envelopeOf } from "../messages/record";
import type { Routing } from "../policies/evaluate";
import type { Kind } from "./kinds";
import type { SendResult } from "./send-result";

/** The item a notification is about, as its senders read it. */
export interface MailItem {
  id: string;
  accountId: string;
  title: string;
  priority: string;
  sensitive: boolean;
  status: string;
  envelope: string;
  createdAt: Date;
  expiresAt: Date | null;
}

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
  message: MailItem;
  envelope: ReturnType<typeof envelopeOf>;
  kind: Kind;
  /** The person may resolve the item (so answer links/buttons may be offered). */
  mayResolve: boolean;
  /**
   * The approval routing recorded on the item at submit (null: the default policy): who is asked, and
   * whether its mail may carry one-click answers (docs/policies.md).
   */
  routing: Routing | null;
  now: Date;
}

export interface ChannelSender {
  reachable(accountId: string, userIds: readonly string[]): Promise<Set<string>>;
  send(ctx: SendContext): Promise<SendResult>;
}

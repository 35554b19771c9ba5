/**
 * §8.7.1 / §14.2 the `receipt` entry: a Hub-originated bounce notice to the sender's live session.
 * Its content is the whole delivered receipt (all six digest members present, §9.8), fixed when it
 * is written; every delivery only signs it afresh.
 */
import { ENTRY_KIND } from "@ma2h/protocol/entry-kinds";
import type { DeliveredReceipt } from "@ma2h/protocol/inbound-message";
import { mintId } from "@ma2h/protocol/ids";
import { HUB_VERSION } from "@ma2h/protocol/versions";
import { inboundLimits } from "../env";
import type { Tx } from "../db";
import { mailboxWakeKey, publishTerminal } from "../pubsub/terminal";

export type Receipt = DeliveredReceipt;

export interface ReceiptFor {
  accountId: string;
  /** The sender agent (row id and `agent.id`) and its live session (choice A17: the submit's own). */
  senderRowId: string;
  senderId: string;
  senderSession: string;
  inReplyTo: string;
  prior: "queued" | "delivered";
  at: Date;
  session: string;
}

/** Writes one receipt into the sender session's mailbox and wakes its drains and streams. */
export async function writeReceipt(tx: Tx, r: ReceiptFor, now: Date): Promise<string> {
  const receipt: Receipt = {
    ma2h_version: HUB_VERSION,
    type: "receipt",
    id: mintId("receipt"),
    in_reply_to: r.inReplyTo,
    event: "bounced",
    prior: r.prior,
    at: r.at.toISOString(),
    session: r.session,
    to: `agent:${r.senderId}#${r.senderSession}`,
  };
  await tx.mailboxEntry.create({
    data: {
      id: receipt.id,
      accountId: r.accountId,
      agentRowId: r.senderRowId,
      kind: ENTRY_KIND.receipt,
      toSession: r.senderSession,
      fromActor: "system:hub",
      ma2hVersion: HUB_VERSION,
      title: "",
      content: JSON.stringify(receipt),
      dropAt: new Date(now.getTime() + inboundLimits().retentionDays * 86_400_000),
      visibleAt: now,
      createdAt: now,
    },
  });
  await publishTerminal(tx, mailboxWakeKey(r.senderRowId));
  return receipt.id;
}

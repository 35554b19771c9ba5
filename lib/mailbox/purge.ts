/**
 * `ma2h-hub agent mailbox purge`: the operator ends an agent's live mailbox entries at once — every
 * un-acked `message` entry one peer agent sent (`from`), or everything the mailbox holds (`all`) —
 * instead of waiting out the retention window. Each ends as the drop sweep ends it (./expiry.ts):
 * `expired` if never drained, a drained command entry `bounced`; audited as the CLI, and an ended
 * `message` entry settles like any undeliverable one (its ask auto-resolves `cancelled`, a
 * bounce's receipt to a live submitting session, ./undeliverable.ts).
 */
import { clock } from "../clock";
import { db } from "../db";
import { type AgentRef, resolveAgent } from "../principals/agents";
import { CLI_ACTOR } from "../principals/admin-scope";
import { HubError } from "@ma2h/protocol/errors";
import { endLiveEntries } from "./expiry";

export interface PurgeResult {
  agent: { id: string; account: string };
  /** The sending agent whose messages ended; null when the whole mailbox was purged. */
  from: string | null;
  ended: number;
}

/** Ends the agent's live entries: those `from` one sending agent of its account, or `all` of them. */
export async function purgeMailbox(ref: AgentRef, which: { from: string } | { all: true }): Promise<PurgeResult> {
  const agent = await resolveAgent(ref);
  let senderRowId: string | null = null;
  let from: string | null = null;
  if ("from" in which) {
    // Addressed messages stay within an account (§8.7.1), so the sender is one of this account's agents.
    const sender = await db().agent.findFirst({
      where: { accountId: agent.accountId, agentId: which.from },
      select: { id: true, agentId: true },
    });
    if (!sender) throw new HubError("not_found", `agent ${which.from} not found in account ${agent.accountSlug}`);
    senderRowId = sender.id;
    from = sender.agentId;
  }
  const now = clock.now();
  const ended = await db().$transaction((tx) =>
    endLiveEntries(tx, { agentRowId: agent.id, senderRowId }, CLI_ACTOR, now),
  );
  return { agent: { id: agent.agentId, account: agent.accountSlug }, from, ended };
}

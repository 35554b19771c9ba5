/**
 * §7 lifecycle: the one compare-and-set. Every terminal transition of an ask/task — resolve, cancel,
 * expiry — goes through `commitTerminal`, which is a single conditional UPDATE against the time the
 * caller passes in (from lib/clock, never the database's now()). In the same statement it writes
 * the Resolution, the audit event, the push-delivery obligation (§3.1) and a NOTIFY that wakes
 * long-poll waiters on commit. First terminal wins; a loser writes nothing.
 */
import type { Message as MessageRow } from "../generated/prisma/client";
import type { Tx } from "../db";
import { mintId } from "@ma2h/protocol/ids";
import type { Resolution } from "@ma2h/protocol/lifecycle";
import { callbackOf, type Message } from "@ma2h/protocol/message";
import { inboundLimits } from "../env";
import type { Prisma } from "../generated/prisma/client";
import { runCommitTransition, type TerminalKind, type TerminalTransition } from "./lifecycle.sql";

export interface TerminalOutcome {
  resolution: Resolution;
  actor: string;
  defaulted: boolean;
  /** The §6 `response` object, or null when the Response carries none (e.g. an expired task). */
  response: Record<string, unknown> | null;
  /** How a person's answer reached the Hub when not the inbox or /v1 ("email"); audited. */
  channel?: string;
  /** The person a delegate answered in place of (docs/policies.md "Delegation"); audited, never in the Response. */
  onBehalfOf?: string;
}

export interface CommitResult {
  won: boolean;
  resolutionId?: string;
  /** The push obligation written with the transition; enqueue it once the transaction commits. */
  deliveryId?: string;
  /** The message that went terminal (when won), for what follows the commit (after-terminal.ts). */
  messageId?: string;
  /** Whether the item was posted to Slack or Teams, whose posts then need an update (after-terminal.ts). */
  slackPosted?: boolean;
  /** The resolution it committed (when won), counted after the commit (after-terminal.ts). */
  resolution?: Resolution;
  /** Who committed it, whether by default, and when (when won): the human-wait span's (lib/telemetry). */
  actor?: string;
  defaulted?: boolean;
  at?: Date;
}

/**
 * One SQL statement: the conditional UPDATE, then — only when it matched — the Resolution, the
 * audit event, the push obligation, the cancellation of the item's pending notifications and the
 * NOTIFYs. Atomic on its own, so a resolve runs it without a transaction (`tx` null) in one round
 * trip; callers that must write more with the transition (cancel's, expiry's, an email answer's
 * token) pass their transaction.
 */
export async function commitTerminal(
  tx: Tx | null,
  row: Pick<MessageRow, "id">,
  envelope: Message,
  kind: TerminalKind,
  outcome: TerminalOutcome,
  now: Date,
  /** A statement that embeds the transition with more writes (a quorum's completing vote, ./approvals.ts). */
  sqlOf?: (t: TerminalTransition) => Prisma.Sql,
): Promise<CommitResult> {
  const resolutionId = mintId("resolution");
  // §8.3 / §3.1: the push obligation commits with the transition it reports.
  const pushes = callbackOf(envelope)?.mode === "push";
  const deliveryId = mintId("delivery");
  const dropAt = new Date(now.getTime() + inboundLimits().retentionDays * 86_400_000);
  const won = await runCommitTransition(
    {
      messageId: row.id,
      kind,
      resolution: outcome.resolution,
      actor: outcome.actor,
      defaulted: outcome.defaulted,
      response: outcome.response,
      channel: outcome.channel,
      onBehalfOf: outcome.onBehalfOf,
      resolutionId,
      deliveryId,
      pushes,
      dropAt,
      now,
    },
    tx ?? undefined,
    sqlOf,
  );
  if (!won) return { won: false };
  return {
    won: true,
    resolutionId,
    deliveryId: won.delivery_id ?? undefined,
    messageId: row.id,
    slackPosted: won.slack_posted,
    resolution: outcome.resolution,
    actor: outcome.actor,
    defaulted: outcome.defaulted,
    at: now,
  };
}

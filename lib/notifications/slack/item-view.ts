/**
 * What a Slack post of an item shows, read from PostgreSQL: the item's fields for blocks.ts (with
 * who the account's approval policy asks, from the routing recorded at submit), and — once settled — its outcome (the chosen option's label), who decided (the Resolution's
 * attested actor) and the channel the answer came by (the audit event's `channel`, e.g. "slack").
 * While open, an ask a quorum rule routed shows its approvals so far (lib/approvals/state.ts).
 */
import { db } from "../../db";
import { envelopeOf } from "../../messages/record";
import { effectiveOptions } from "@ma2h/protocol/ask-contract";
import type { Routing } from "../../policies/evaluate";
import { routingOf } from "../../policies/routing";
import { readApprovals } from "../../approvals/state";
import { approvalsLine, quorumNeeds } from "../../approvals/tally";
import type { OpenState, PostItem, PostState } from "./blocks";

/** The open state a post shows: with the quorum's approvals line when a quorum rule routed the item. */
export async function openStateOf(messageId: string, routing: Routing | null): Promise<OpenState> {
  const state = routing?.quorum ? await readApprovals(messageId) : null;
  return state ? { status: "open", approvals: approvalsLine(state) } : { status: "open" };
}

type ItemRow = Parameters<typeof envelopeOf>[0] & {
  id: string;
  title: string;
  priority: string;
  sensitive: boolean;
};

export function postItemOf(row: ItemRow, routing: Routing | null): PostItem {
  const envelope = envelopeOf(row);
  return {
    id: row.id,
    title: row.title,
    priority: row.priority,
    agentId: envelope.agent.id,
    type: envelope.type,
    sensitive: row.sensitive,
    body: envelope.body,
    request: envelope.type === "ask" ? envelope.request : undefined,
    asked:
      routing === null
        ? undefined
        : {
            rules: routing.rules,
            people: routing.eligible,
            ...(routing.quorum && quorumNeeds(routing.quorum) ? { needs: quorumNeeds(routing.quorum) as string } : {}),
          },
  };
}

/** The item's state as a post shows it, from its row, Resolution and terminal audit event. */
export async function postStateOf(messageId: string): Promise<{ item: PostItem; state: PostState } | null> {
  const row = await db().message.findUnique({ where: { id: messageId }, include: { resolution: true } });
  if (!row) return null;
  const routing = routingOf(row);
  const item = postItemOf(row, routing);
  if (row.status === "open" || !row.resolution) return { item, state: await openStateOf(messageId, routing) };
  const event = await db().auditEvent.findFirst({
    where: { messageId, event: `message.${row.status}` },
    select: { detail: true },
    orderBy: { at: "desc" },
  });
  const channel = (event?.detail as { channel?: unknown } | null)?.channel;
  let outcome: string | null = null;
  if (item.request && row.resolution.response) {
    const value = (JSON.parse(row.resolution.response) as { value?: unknown }).value;
    outcome = effectiveOptions(item.request).find((o) => o.value === value)?.label ?? null;
  }
  return {
    item,
    state: {
      status: row.status,
      outcome,
      decidedBy: row.resolution.actor,
      channel: typeof channel === "string" ? channel : null,
    },
  };
}

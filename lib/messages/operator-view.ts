/**
 * What `ma2h-hub message show <id>` prints: a message's outcome and its §14.2 response track, for
 * the operator — live or purged. A purged message answers from its tombstone, so the response
 * track's `expired` (retention passed short of `delivered-to-agent`, §14.2 v0.5) stays readable
 * after the GET that could carry it is gone. Never the body, context, value or comment.
 */
import { db } from "../db";
import { HubError } from "@ma2h/protocol/errors";

/**
 * The §14.2 response track as far as the Hub knows it: `delivered-to-agent` / `acknowledged` on a
 * live message, `expired` on a purged one whose answer never reached the agent; null otherwise (no
 * answer yet, not reached yet, a notify — or a purged message that did reach the agent, since the
 * tombstone keeps only whether it ended `expired`).
 */
export type ResponseDeliveryState = "delivered-to-agent" | "acknowledged" | "expired" | null;

export interface OperatorMessageView {
  id: string;
  account: string | null;
  agent: string | null;
  /** null on a tombstone written before the summary was kept. */
  type: string | null;
  title: string | null;
  status: string | null;
  actor: string | null;
  resolved_at: string | null;
  delivery_state: ResponseDeliveryState;
  delivered_at: string | null;
  acknowledged_at: string | null;
  delivery_expired_at: string | null;
  purged: boolean;
  purged_at: string | null;
}

export async function messageForOperator(id: string): Promise<OperatorMessageView> {
  const row = await db().message.findUnique({
    where: { id },
    select: {
      id: true,
      type: true,
      title: true,
      status: true,
      account: { select: { slug: true } },
      agent: { select: { agentId: true } },
      resolution: { select: { actor: true, resolvedAt: true, deliveredToAgentAt: true, ackedAt: true } },
    },
  });
  if (row) {
    const r = row.resolution;
    const state: ResponseDeliveryState = r?.ackedAt
      ? "acknowledged"
      : r?.deliveredToAgentAt
        ? "delivered-to-agent"
        : null;
    return {
      id: row.id,
      account: row.account.slug,
      agent: row.agent.agentId,
      type: row.type,
      title: row.title,
      status: row.status,
      actor: r?.actor ?? null,
      resolved_at: r?.resolvedAt.toISOString() ?? null,
      delivery_state: state,
      delivered_at: r?.deliveredToAgentAt?.toISOString() ?? null,
      acknowledged_at: r?.ackedAt?.toISOString() ?? null,
      delivery_expired_at: null,
      purged: false,
      purged_at: null,
    };
  }
  const tomb = await db().messageTombstone.findUnique({ where: { id } });
  if (!tomb) throw new HubError("not_found", "no such message");
  const [account, agent] = await Promise.all([
    db().account.findUnique({ where: { id: tomb.accountId }, select: { slug: true } }),
    db().agent.findUnique({ where: { id: tomb.agentRowId }, select: { agentId: true } }),
  ]);
  return {
    id: tomb.id,
    account: account?.slug ?? null,
    agent: agent?.agentId ?? null,
    type: tomb.type,
    title: tomb.title,
    status: tomb.status,
    actor: tomb.actor,
    resolved_at: tomb.resolvedAt?.toISOString() ?? null,
    delivery_state: tomb.deliveryExpiredAt ? "expired" : null,
    delivered_at: null,
    acknowledged_at: null,
    delivery_expired_at: tomb.deliveryExpiredAt?.toISOString() ?? null,
    purged: true,
    purged_at: tomb.purgedAt.toISOString(),
  };
}

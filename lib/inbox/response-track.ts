/**
 * What the person who answered sees of the agent's side (§14.2, §15.4): on a resolved ask/task,
 * the response track (not picked up yet → delivered to the agent → acknowledged, with its note);
 * on a pending one, whether the submitting agent is waiting right now. Read for an item the caller
 * already may see (itemForHuman decided that).
 */
import { db } from "../db";
import { deliveryTrack } from "../messages/delivery-track";
import { presenceOf, type Presence } from "../presence/state";

export interface ResponseTrackView {
  state: "not-delivered" | "delivered-to-agent" | "acknowledged";
  deliveredAt: string | null;
  acknowledgedAt: string | null;
  /** The agent's ack note: untrusted agent text, rendered only through the sanitizing renderer. */
  note: string | null;
  by: string | null;
}

export interface ItemTrack {
  /** Resolved asks/tasks only. */
  response: ResponseTrackView | null;
  /** Pending asks/tasks only: the submitting agent's presence (§15.4). */
  waiting: (Presence & { text: string }) | null;
}

/** §15.4 wording on a pending ask/task: is the agent blocked on this answer right now? */
export function waitingWording(p: Presence): string {
  return p.state === "online" ? "waiting now" : "will see it next run";
}

export async function itemTrackFor(messageId: string): Promise<ItemTrack> {
  const row = await db().message.findUnique({
    where: { id: messageId },
    select: {
      type: true,
      status: true,
      ma2hVersion: true,
      agent: { select: { agentId: true, lastSeenAt: true } },
      resolution: {
        select: {
          id: true,
          deliveredToAgentAt: true,
          ackedAt: true,
          ackBy: true,
          ackNote: true,
          ackResolutionId: true,
        },
      },
    },
  });
  if (!row || row.type === "notify") return { response: null, waiting: null };
  if (row.status === "open" || !row.resolution) {
    const p = presenceOf(row.agent.agentId, row.agent.lastSeenAt);
    return { response: null, waiting: { ...p, text: waitingWording(p) } };
  }
  const track = deliveryTrack(messageId, row.ma2hVersion, row.resolution);
  if (!track)
    return {
      response: { state: "not-delivered", deliveredAt: null, acknowledgedAt: null, note: null, by: null },
      waiting: null,
    };
  return {
    response: {
      state: track.state,
      deliveredAt: track.delivered_at,
      acknowledgedAt: track.acknowledged_at ?? null,
      note: track.ack?.note ?? null,
      by: track.ack?.by ?? null,
    },
    waiting: null,
  };
}

export type WaitingByRow = Record<string, { state: Presence["state"]; text: string }>;

/**
 * §15.4 on the list: for each pending ask/task of a page (rows the person already may see), the
 * submitting agent's presence, keyed by message id. One query for the page's distinct agents.
 */
export async function waitingForRows(
  rows: ReadonlyArray<{ id: string; account: string; agentId: string; type: string; status: string }>,
): Promise<WaitingByRow> {
  const pending = rows.filter((r) => r.status === "open" && r.type !== "notify");
  if (pending.length === 0) return {};
  const pairs = [...new Map(pending.map((r) => [`${r.account}\u0000${r.agentId}`, r])).values()];
  const agents = await db().agent.findMany({
    where: { OR: pairs.map((r) => ({ agentId: r.agentId, account: { slug: r.account } })) },
    select: { agentId: true, lastSeenAt: true, account: { select: { slug: true } } },
  });
  const seen = new Map(agents.map((a) => [`${a.account.slug}\u0000${a.agentId}`, a.lastSeenAt]));
  const out: WaitingByRow = {};
  for (const r of pending) {
    const p = presenceOf(r.agentId, seen.get(`${r.account}\u0000${r.agentId}`) ?? null);
    out[r.id] = { state: p.state, text: waitingWording(p) };
  }
  return out;
}

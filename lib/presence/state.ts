/** §15.2 presence states from `last_seen` and the advertised freshness window W. */
import { clock } from "../clock";
import { inboundLimits } from "../env";

export type PresenceState = "online" | "offline" | "unknown";

export interface Presence {
  agent_id: string;
  state: PresenceState;
  last_seen?: string;
  freshness_seconds: number;
}

/** `online` when now − last_seen ≤ W, `offline` when older, `unknown` with no `last_seen`. */
export function presenceOf(agentId: string, lastSeenAt: Date | null, now: Date = clock.now()): Presence {
  const w = inboundLimits().presenceFreshnessSeconds;
  if (!lastSeenAt) return { agent_id: agentId, state: "unknown", freshness_seconds: w };
  const state = now.getTime() - lastSeenAt.getTime() <= w * 1000 ? "online" : "offline";
  return { agent_id: agentId, state, last_seen: lastSeenAt.toISOString(), freshness_seconds: w };
}

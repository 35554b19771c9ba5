/**
 * §15.1 presence stamps from message GETs and mailbox drains, at most one write per agent per second per process. A
 * burst — a thousand long-polls of one agent parking, or waking on one commit — would otherwise queue
 * a thousand UPDATEs on the same `agents` row. Skipping is conservative: the stored `last_seen` is
 * then at most a second older than the agent's newest request, never newer (§15.1 truthfulness).
 */
import { clock } from "../clock";
import { processWide } from "../process-wide";
import { recordAgentSeen } from "./seen";

const INTERVAL_MS = 1000;
const MAX_TRACKED = 10_000;
/** Per process, not per copy of this module: the lane and Next stamp the same agents. */
const lastStamp = () => processWide("ma2h.presence-stamps", () => new Map<string, number>());

export async function recordAgentSeenThrottled(agentRowId: string): Promise<void> {
  const now = clock.now();
  const last = lastStamp().get(agentRowId);
  if (last !== undefined && now.getTime() - last < INTERVAL_MS && now.getTime() >= last) return;
  if (lastStamp().size >= MAX_TRACKED) lastStamp().clear(); // bounded: forgetting only costs a write
  lastStamp().set(agentRowId, now.getTime());
  await recordAgentSeen(agentRowId, now);
}

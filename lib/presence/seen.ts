/**
 * §15.1 directive presence: `last_seen` moves only on the agent's own authenticated reachability
 * traffic — a mailbox drain or a message GET (with or without `?wait`) —
 * never on sign-in, admin activity or anything a human does.
 */
import { clock } from "../clock";
import { runStampLastSeen } from "./seen.sql";

/** Stamps the agent's `last_seen`. Monotonic: a slower concurrent stamp never moves it back. */
export async function recordAgentSeen(agentRowId: string, at: Date = clock.now()): Promise<void> {
  await runStampLastSeen(agentRowId, at);
}

/**
 * §4 `to`: where an addressed (inter-agent) message goes, validated at accept time within the
 * submitter's account (§4, §8.1, §16.3). Every refusal that could tell a sender something the §16.4
 * visibility policy or a §13.5 sender allowlist denies it reads exactly like a nonexistent
 * destination — one error, one message text — so neither the allowlist nor another account's agent
 * list nor another principal's session states can be probed through the submit path.
 */
import { HubError } from "@ma2h/protocol/errors";
import type { Message } from "@ma2h/protocol/message";
import type { Destination } from "@ma2h/protocol/submit-ack";
import { presenceOf } from "../presence/state";
import type { AgentPrincipal } from "../principals/types";
import { policyOf, senderAllowed } from "../principals/sender-allowlist";
import { interAgentStateOf } from "../principals/accounts";
import { accountWideFor } from "../sessions/read";
import type { Tx } from "../db";
import { HUB_OWNED_KEYS } from "./serialize";
import { lockDestinationSession, readDestinationAgent, readPrincipalSessionsSeen } from "./addressing.sql";

/**
 * §4 sender-side symmetry: an addressed or session-bearing submit from an `agent.id` containing `#`
 * is `422 invalid_field`. This runs before schema validation, whose own conditional would say 400.
 */
export function assertSenderIdAddressable(body: Record<string, unknown>): void {
  const agent = body.agent as { id?: unknown; session?: unknown } | undefined;
  const addressed = body.to !== undefined || agent?.session !== undefined;
  if (addressed && typeof agent?.id === "string" && agent.id.includes("#")) {
    throw new HubError(
      "invalid_field",
      "an agent.id containing '#' cannot send addressed or session-bearing messages (§4)",
    );
  }
}

/** A validated destination: the principal, the session when session-addressed, and the §8.1 snapshot. */
export interface ResolvedDestination {
  agentRowId: string;
  agentId: string;
  sessionId: string | null;
  snapshot: Destination;
}

/** The one refusal for unknown, cross-account, allowlist-blocked and visibility-collapsed (§4, §8.0). */
function unknownDestination(): HubError {
  return new HubError("unknown_destination", "to: no such destination");
}

/** §4 grammar: the first `#` ends the agent id; the rest is the session (the schema checked `^sess_`). */
export function parseAddress(to: string): { agentId: string; sessionId: string | null } {
  const rest = to.slice("agent:".length);
  const hash = rest.indexOf("#");
  return hash < 0
    ? { agentId: rest, sessionId: null }
    : { agentId: rest.slice(0, hash), sessionId: rest.slice(hash + 1) };
}

/**
 * Checks the account's opt-in (choice A14: `422 invalid_field`, which names nothing about anyone
 * else), the destination principal in the sender's own account, its sender allowlist, and a named
 * session's state; returns the destination with its reachability snapshot. A named session is
 * share-locked until the submit commits, so a close or expiry racing it waits and then bounces the
 * new entry (lib/sessions/end.ts) — never an entry parked for a session already gone.
 */
export async function resolveDestination(
  tx: Tx,
  principal: AgentPrincipal,
  message: Message,
  now: Date,
): Promise<ResolvedDestination | null> {
  if (message.to === undefined) return null;
  const { agentId, sessionId } = parseAddress(message.to);
  // Every read here goes through `tx`: this runs inside the submit's transaction, which holds a
  // pooled connection; taking a second one deadlocks the pool under a burst of addressed submits.
  const leg = await interAgentStateOf(principal.accountId, tx);
  if (!leg.effective) {
    // Says which switch is off — the sender's own account, nothing about anyone else — and where a
    // sender learns it beforehand.
    const why = leg.optedIn
      ? "the inter-agent leg is not enabled on this Hub (MA2H_INTER_AGENT)"
      : "this account has not opted in to the inter-agent leg (an account owner turns it on in Settings, or: ma2h-hub account set <slug> --inter-agent on)";
    throw new HubError("invalid_field", `to: ${why}; GET /v1/agents/me says whether it is on`);
  }
  const row = await readDestinationAgent(tx, principal.accountId, agentId);
  if (!row) throw unknownDestination();
  const policy = policyOf({ sendersRestricted: row.senders_restricted, allowedSenders: row.allowed_senders });
  if (!senderAllowed(policy, principal.agentId)) throw unknownDestination();

  // §8.1 / §16.4 (choice A24): the sender sees its own principal's sessions always, a sibling's
  // only under the account grant within the deployment ceiling.
  const visible = row.agent_row_id === principal.agentRowId || (await accountWideFor(principal, tx));
  // The newest session-bearing activity, and the newest of a session still live (§15.1).
  let lastSeen: Date | null;
  let liveSeen: Date | null;
  if (sessionId !== null) {
    const s = await lockDestinationSession(tx, row.agent_row_id, sessionId);
    if (!s) throw unknownDestination();
    if (s.state !== "active" || s.expires_at <= now) {
      // §16.3: 410 whoever ended it — collapsed to the unknown 422 for a sender without visibility.
      if (!visible) throw unknownDestination();
      throw new HubError("destination_gone", `to: session ${sessionId} has ended`);
    }
    lastSeen = s.last_seen_at;
    liveSeen = s.last_seen_at;
  } else {
    const p = await readPrincipalSessionsSeen(tx, row.agent_row_id, now);
    lastSeen = p?.last_seen ?? null;
    liveSeen = p?.live_seen ?? null;
  }
  return {
    agentRowId: row.agent_row_id,
    agentId,
    sessionId,
    snapshot: visible ? snapshotOf(lastSeen, liveSeen, now) : { state: "unknown" },
  };
}

/**
 * §8.1 / §15.2: `online` when a live session was active within the freshness window, else
 * `offline` with the newest activity, `unknown` when the destination never had any (choice A24).
 */
function snapshotOf(lastSeen: Date | null, liveSeen: Date | null, now: Date): Destination {
  const live = presenceOf("", liveSeen, now);
  if (live.state === "online" && live.last_seen !== undefined) return { state: "online", last_seen: live.last_seen };
  const any = presenceOf("", lastSeen, now);
  if (any.last_seen === undefined) return { state: "unknown" };
  return { state: "offline", last_seen: any.last_seen };
}

/** §8.7.1 the attested `from`: `agent:<id>`, session-qualified exactly when the submit named its session. */
export function attestedFrom(principal: AgentPrincipal, message: Message): string {
  const session = message.agent.session;
  return session === undefined ? `agent:${principal.agentId}` : `agent:${principal.agentId}#${session}`;
}

/**
 * §8.7.1 the delivered form of an addressed message: the envelope as submitted, with the Hub's `id`
 * and attested `from`, and without the submitter's machinery — `state` (§9.3), `client_ref` (§9.1)
 * and any `request.callback` / `action.callback`. Hub-owned keys an agent may have put in the body
 * are dropped too; `from`, `id` and `to` are written last, so none of them is ever the submitter's.
 */
export function deliveredMessageForm(
  body: Record<string, unknown>,
  id: string,
  from: string,
  to: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body };
  for (const key of ["state", "client_ref", ...HUB_OWNED_KEYS]) delete out[key];
  for (const block of ["request", "action"] as const) {
    const value = out[block];
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      const { callback: _cb, ...kept } = value as Record<string, unknown>;
      out[block] = kept;
    }
  }
  return { ...out, id, from, to };
}

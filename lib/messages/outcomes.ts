/**
 * Builders for the §6 `response` detail of each terminal cause. The actor is always Hub-attested
 * (§9.1): it is passed in by the caller that authenticated the request, never read from a body.
 */
import type { Message } from "@ma2h/protocol/message";
import { DEFAULT_ON_EXPIRE_ACTOR } from "@ma2h/protocol/response";
import { isEditedAnswer, type ResolveRequest } from "@ma2h/protocol/rules";
import type { TerminalOutcome } from "./lifecycle";

export const EXPIRY_ACTOR = "system:expiry";

/**
 * A resolver's answer (§8.8). `edited` is the Hub's own membership test (§6): true iff the value is
 * off-menu. A resolver-supplied `edited` is never read (dp-028 (4)).
 */
export function resolvedOutcome(envelope: Message, body: ResolveRequest, actor: string, now: Date): TerminalOutcome {
  const response: Record<string, unknown> = {};
  if (body.value !== undefined) {
    response.value = body.value;
    response.edited = envelope.type === "ask" && isEditedAnswer(envelope.request, body.value);
  }
  response.actor = actor;
  response.resolved_at = now.toISOString();
  if (body.comment !== undefined) response.comment = body.comment;
  if (body.checklist !== undefined) response.checklist = body.checklist;
  // §6: a task Response carries `response` only for a comment and/or checklist.
  const hasDetail = envelope.type === "ask" || body.comment !== undefined || body.checklist !== undefined;
  return { resolution: body.resolution, actor, defaulted: false, response: hasDetail ? response : null };
}

/** §8.4: the submitter's cancel; its actor is `agent:<submitter id>`. */
export function cancelledOutcome(agentId: string, now: Date): TerminalOutcome {
  const actor = `agent:${agentId}`;
  return { resolution: "cancelled", actor, defaulted: false, response: { actor, resolved_at: now.toISOString() } };
}

/**
 * §7 expiry. An ask with a non-null `default_on_expire` resolves `expired`, `defaulted: true`,
 * actor `system:default_on_expire`, carrying the default as `value`; without one `system:expiry`
 * and no value. A task never takes a default and carries no `response`.
 */
export function expiredOutcome(envelope: Message, now: Date): TerminalOutcome {
  const resolved_at = now.toISOString();
  if (envelope.type !== "ask") {
    return { resolution: "expired", actor: EXPIRY_ACTOR, defaulted: false, response: null };
  }
  const fallback = envelope.request.default_on_expire;
  if (fallback === undefined || fallback === null) {
    return {
      resolution: "expired",
      actor: EXPIRY_ACTOR,
      defaulted: false,
      response: { actor: EXPIRY_ACTOR, resolved_at },
    };
  }
  return {
    resolution: "expired",
    actor: DEFAULT_ON_EXPIRE_ACTOR,
    defaulted: true,
    response: { value: fallback, edited: false, actor: DEFAULT_ON_EXPIRE_ACTOR, resolved_at },
  };
}

export const UNDELIVERABLE_ACTOR = "system:undeliverable";

/**
 * §7 (v0.5): an addressed ask/task whose mailbox track ended `bounced` or `expired` — no addressee
 * can ever see it — auto-resolves: an ask `cancelled`, a task `dismissed`, attested
 * `system:undeliverable` — on the task too, whose Response otherwise carries `response` only for a
 * comment or checklist (§6): §7 names the attested actor for both.
 */
export function undeliverableOutcome(type: Message["type"], now: Date): TerminalOutcome {
  const actor = UNDELIVERABLE_ACTOR;
  const response = { actor, resolved_at: now.toISOString() };
  return { resolution: type === "task" ? "dismissed" : "cancelled", actor, defaulted: false, response };
}

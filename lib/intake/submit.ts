/**
 * An agent's message entering the Hub — the one path `POST /v1/messages`, the MCP endpoint's tools
 * (lib/mcp) and the A2A gateway (lib/a2a) all take: the §8.6 submit budget, §8.1 `submitMessage`
 * (the account's approval policy, notifications, audit), then — for a new open ask — the account's
 * standing rules, which may answer it at once (docs/policies.md "Standing rules").
 */
import { type SubmitResult, submitMessage } from "../messages/submit";
import { interAgentSettings } from "../env";
import type { AgentPrincipal } from "../principals/types";
import { consumeSubmitBudget } from "../rate-limit";
import { answerByStandingRule } from "../standing-rules/apply";

export async function acceptSubmit(
  principal: AgentPrincipal,
  payload: Record<string, unknown>,
  /** Runs once the message is stored, before a standing rule may answer it (a trace to keep). */
  onStored?: (result: SubmitResult) => Promise<void>,
): Promise<SubmitResult> {
  // §8.6: addressed submits (`to`) count against the separate inter-agent budget only, so agent
  // chatter cannot spend the budget of the agent's human-facing asks.
  if ("to" in payload) {
    await consumeSubmitBudget(
      `inter-agent:${principal.agentRowId}`,
      interAgentSettings().requestsPerMinute,
      "addressed submits",
    );
  } else {
    await consumeSubmitBudget(principal.agentRowId);
  }
  const result = await submitMessage(principal, payload);
  await onStored?.(result);
  // The ack still says `open` when a rule answers: the agent reads the rule's Response as it would a person's.
  if (!result.replayed && result.ack.status === "open") await answerByStandingRule(principal, result.ack.id);
  return result;
}

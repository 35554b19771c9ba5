/**
 * What an item's page shows of standing rules (docs/policies.md "Standing rules"): the "answer and
 * remember" form's choices for a person who may make a rule of the ask, and, on an ask a rule
 * answered, that rule — who set it, its scope, how many asks it has answered.
 */
import { effectiveOptions } from "@ma2h/protocol/ask-contract";
import type { Message } from "@ma2h/protocol/message";
import { durationAllowed, RULE_DURATION_NAMES } from "../policies/model";
import { standingRulesSettings } from "../policies/store";
import { rememberRefusal, ruleById } from "./store";

/** What the "answer and remember" form offers on an ask. */
export interface RememberView {
  agentId: string;
  mode: "confirm" | "select";
  options: Array<{ value: string; label: string }>;
  /** The durations the account's policy allows, shortest first. */
  durations: string[];
  project: string | null;
  tags: string[];
  /** The title with each run of digits as `*`: a pattern that matches "Deploy build #142" and "#143". */
  suggestedPattern: string;
}

const RULE_ACTOR = /^system:rule\/(rule_[0-9a-z]+)$/;

/** The form's choices, or null when this person may not make a rule of this ask now. */
export async function rememberChoices(
  userId: string,
  row: { id: string; accountId: string },
  envelope: Message,
  agentId: string,
): Promise<RememberView | null> {
  if (envelope.type !== "ask" || envelope.request.mode === "input") return null;
  if ((await rememberRefusal(userId, row.id)) !== null) return null;
  const { longest } = await standingRulesSettings(row.accountId);
  return {
    agentId,
    mode: envelope.request.mode,
    options: effectiveOptions(envelope.request).map((o) => ({ value: o.value, label: o.label ?? o.value })),
    durations: RULE_DURATION_NAMES.filter((d) => durationAllowed(d, longest)),
    project: (envelope.agent as { project?: string }).project ?? null,
    tags: envelope.tags ?? [],
    suggestedPattern: envelope.title.replace(/\d+/g, "*"),
  };
}

/** The rule named by a resolution's actor, as the item shows it; null for any other actor. */
export async function ruleOfActor(accountId: string, actor: string | undefined) {
  const id = actor ? RULE_ACTOR.exec(actor)?.[1] : undefined;
  if (id === undefined) return null;
  const rule = await ruleById(accountId, id);
  return rule && { id: rule.id, creator: rule.creator, words: rule.words, hits: rule.hits, state: rule.state };
}

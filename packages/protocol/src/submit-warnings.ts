/**
 * §10 makes a Hub ignore a field it does not know, and the §8.1 submit ack is a closed object that
 * can carry nothing more — so a field an agent put in the wrong place vanishes without a word. For
 * the misplacement that changes who may answer, a top-level `allowed_resolvers` (the list belongs in
 * `request`, §5.2, or `action`, §5.3; without it the ask goes to every member, §9.1), the Hub answers
 * with an `MA2H-Warning` response header naming the ignored field (docs/api.md "Warnings").
 * Pure: the submit handler sets the header; nothing about the message changes.
 */
import { isPlainObject } from "./input-schema";

export const WARNING_HEADER = "MA2H-Warning";

/** Top-level fields that are ignored as unknown (§10) but look meant for a block of the message. */
const MISPLACED: Readonly<Record<string, { ask: string; task: string }>> = {
  allowed_resolvers: { ask: "request.allowed_resolvers", task: "action.allowed_resolvers" },
};

/**
 * The warnings for a submit body, each `ignored-field=<name>; use=<where it belongs>`; empty when
 * there is nothing to say. Header values are kept to ASCII.
 */
export function submitWarnings(body: unknown): string[] {
  if (!isPlainObject(body)) return [];
  const warnings: string[] = [];
  for (const [field, place] of Object.entries(MISPLACED)) {
    if (!Object.hasOwn(body, field)) continue;
    const use = body.type === "ask" ? place.ask : body.type === "task" ? place.task : `${place.ask} or ${place.task}`;
    warnings.push(`ignored-field=${field}; use=${use}`);
  }
  return warnings;
}

/** The response headers for `warnings`: one `MA2H-Warning`, the warnings comma-separated; none when empty. */
export function warningHeaders(warnings: readonly string[]): Record<string, string> {
  return warnings.length === 0 ? {} : { [WARNING_HEADER]: warnings.join(", ") };
}

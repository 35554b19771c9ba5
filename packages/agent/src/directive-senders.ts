/**
 * §13.5: "An agent SHOULD apply its own authorization policy to a verified directive (which `from`
 * principals may instruct it)" — verification proves origin, not intent-safety. `directivesFrom` is
 * that policy: the Hub-attested `from` values (`human:<id>`, `system:<…>`, §13.1) that may instruct
 * this agent. Absent, every verified sender of the account may. A directive from anyone else is
 * reported to `onRejected` as a SenderNotAcceptedError and left un-acked — the person sees it
 * unacknowledged, which is the truth; ack its id to drop it instead.
 */
const DIRECTIVE_FROM = /^(human|system):.+$/u;

export type DirectiveSenders = readonly string[];

/** The policy, checked once per drain: a malformed entry is the caller's bug, never "nobody". */
export function checkDirectiveSenders(senders: DirectiveSenders | undefined): DirectiveSenders | undefined {
  if (senders === undefined) return undefined;
  if (!Array.isArray(senders))
    throw new TypeError("directivesFrom is a list of human:<id> / system:<…> principals ([] for none)");
  for (const s of senders)
    if (typeof s !== "string" || !DIRECTIVE_FROM.test(s))
      throw new TypeError(`directivesFrom entry ${JSON.stringify(s)} is not human:<id> or system:<…>`);
  return senders;
}

export function directiveSenderAccepted(from: string, senders: DirectiveSenders | undefined): boolean {
  return senders === undefined || senders.includes(from);
}

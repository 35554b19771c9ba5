/**
 * §8.7.1 the kinds of mailbox entry, as stored (`mailbox_entries.kind`) and delivered. Directives
 * (§13) and `message` entries are command surface and bounce when their session ends (§14.2);
 * `response` and `receipt` entries are delivery conveniences that never bounce.
 */
export const ENTRY_KIND = {
  directive: "directive",
  message: "message",
  response: "response",
  receipt: "receipt",
} as const;

export type StoredEntryKind = (typeof ENTRY_KIND)[keyof typeof ENTRY_KIND];

/** §14.2 / §16.3: the kinds a session's end bounces. */
export const COMMAND_KINDS: readonly StoredEntryKind[] = [ENTRY_KIND.directive, ENTRY_KIND.message];

/** §8.0 `inter_agent.entry_kinds`: the v0.5 kinds, delivered only to session-presenting drains. */
export const INTER_AGENT_KINDS: readonly StoredEntryKind[] = [
  ENTRY_KIND.message,
  ENTRY_KIND.response,
  ENTRY_KIND.receipt,
];

/** PostgreSQL NOTIFY channel carrying the id of a message that just turned terminal (on commit). */
export const TERMINAL_CHANNEL = "ma2h_message_terminal";

/** NOTIFY channel for the inbox (new messages and terminal transitions); payload `<account id>:<message id>`. */
export const INBOX_CHANNEL = "ma2h_inbox";

/**
 * The long-poll registry (lib/messages/waiters.ts) is keyed by string and listens on TERMINAL_CHANNEL; a mailbox
 * drain parks under this key, and authoring a directive NOTIFYs it there. Message ids start `msg_`,
 * so the keys never collide, and one LISTEN connection per process serves both legs.
 */
export function mailboxWakeKey(agentRowId: string): string {
  return `mailbox:${agentRowId}`;
}

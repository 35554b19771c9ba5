/**
 * Publishing on the long-poll channel. The long-poll registry (lib/messages/waiters.ts) is keyed by
 * string: a message id wakes §8.2 long-polls on that message; `mailboxWakeKey` wakes §8.7 drains
 * parked on an agent's mailbox; `sessionWakeKey` ends the streams of a session that ended. Message
 * ids start `msg_`, so the keys never collide, and one LISTEN
 * connection per process serves both.
 */
import type { Tx } from "../db";
import { TERMINAL_CHANNEL } from "./channels";
import { publishOn } from "./publish.sql";

const MAILBOX_KEY_PREFIX = "mailbox:";
const SESSION_KEY_PREFIX = "session:";

export function mailboxWakeKey(agentRowId: string): string {
  return `${MAILBOX_KEY_PREFIX}${agentRowId}`;
}

export function isMailboxWakeKey(key: string): boolean {
  return key.startsWith(MAILBOX_KEY_PREFIX);
}

/** Wakes what holds a session open — its mailbox streams (§8.7.2) — when the session ends (§16.3). */
export function sessionWakeKey(sessionId: string): string {
  return `${SESSION_KEY_PREFIX}${sessionId}`;
}

/** Wakes whoever waits on `key`, when `tx` commits. */
export async function publishTerminal(tx: Tx, key: string): Promise<void> {
  await publishOn(tx, TERMINAL_CHANNEL, key);
}

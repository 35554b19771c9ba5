/** How an answer reached `resolveMessage` (lib/messages/resolve.ts) and the vote of a quorum ask (./approvals.ts). */
import type { Tx } from "../db";

/** Where a person's or agent's answer came from, written into the resolution's audit event. */
export type AnswerChannel = "api" | "inbox" | "email" | "slack" | "push" | "teams";

/**
 * How the answer came: the channel for the audit event, and `withResolution`, which runs in the
 * resolving transaction once the §7 CAS has won (e.g. spending an email link's single-use token) —
 * a throw there rolls the whole resolution back. On an ask a quorum rule routed it runs in the
 * vote's transaction once the person's vote is recorded (a repeat of the same vote records nothing
 * and does not run it), so a link answers once whether or not its vote completes the ask.
 */
export interface ResolveChannel {
  channel: AnswerChannel;
  withResolution?: (tx: Tx, now: Date) => Promise<void>;
}

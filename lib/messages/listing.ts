/**
 * Columns copied out of the envelope at submit so the human inbox can filter and order without
 * parsing JSON per row (lib/inbox/list.ts). The envelope stays the source of truth.
 */
import type { Message } from "../protocol/message";

export type Priority = "urgent" | "high" | "normal" | "low";

/** Inbox order: urgent first, low last; an absent priority is `normal` (§4). */
export const PRIORITY_RANK: Readonly<Record<Priority, number>> = Object.freeze({ urgent: 0, high: 1, normal: 2, low: 3 });

export function listingColumns(message: Pick<Message, "priority" | "tags" | "agent">): {
  priorityRank: number;
  project: string | null;
  tags: string[];
} {
  return {
    priorityRank: PRIORITY_RANK[message.priority ?? "normal"],
    project: message.agent.project ?? null,
    tags: [...new Set(message.tags ?? [])],
  };
}

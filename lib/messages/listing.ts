/**
 * Columns copied out of the envelope at submit so the human inbox can filter and order without
 * parsing JSON per row (lib/inbox/list.ts). The envelope stays the source of truth.
 */
import type { Message } from "@ma2h/protocol/message";

export type Priority = "urgent" | "high" | "normal" | "low";

/** Every priority, in inbox order (urgent first). */
export const PRIORITIES = ["urgent", "high", "normal", "low"] as const satisfies readonly Priority[];

/** Inbox order: urgent first, low last; an absent priority is `normal` (§4). */
export const PRIORITY_RANK: Readonly<Record<Priority, number>> = Object.freeze({
  urgent: 0,
  high: 1,
  normal: 2,
  low: 3,
});

/**
 * Index keys have a size limit (a B-tree or GIN entry over ~2.7 kB fails the INSERT), and agents
 * choose these strings: a project or tag longer than this is not copied — it stays in the envelope
 * and on the item page, it just cannot be filtered on. So is any tag past the first MAX_TAGS.
 */
export const MAX_LISTING_CHARS = 200;
export const MAX_TAGS = 32;

const fits = (s: string) => s.length <= MAX_LISTING_CHARS;

export function listingColumns(message: Pick<Message, "priority" | "tags" | "agent">): {
  priorityRank: number;
  project: string | null;
  tags: string[];
} {
  const project = message.agent.project;
  return {
    priorityRank: PRIORITY_RANK[message.priority ?? "normal"],
    project: project !== undefined && fits(project) ? project : null,
    tags: [...new Set(message.tags ?? [])].filter(fits).slice(0, MAX_TAGS),
  };
}

/**
 * The inbox's filters and page cursor as plain values, parsed from URL search parameters. Anything
 * unrecognised is dropped (a hand-edited URL shows an unfiltered list, never an error page).
 */
import { z } from "zod";
import { PRIORITIES } from "../messages/listing";

export const VERBS = ["ask", "task", "notify"] as const;
export { PRIORITIES };
/** Every status a human-inbox message can have (§5.1, §7). */
export const STATUSES = [
  "open",
  "answered",
  "declined",
  "completed",
  "dismissed",
  "cancelled",
  "expired",
  "delivered",
] as const;

export interface InboxFilters {
  /** An account slug; absent = every account the person has a seat in. */
  account?: string;
  verb?: (typeof VERBS)[number];
  status?: (typeof STATUSES)[number];
  priority?: (typeof PRIORITIES)[number];
  /** The wire `agent.id`. */
  agent?: string;
  project?: string;
  tag?: string;
  /** Case-insensitive substring of the title. */
  q?: string;
}

export type FilterKey = keyof InboxFilters;
export const FILTER_KEYS: readonly FilterKey[] = [
  "account",
  "verb",
  "status",
  "priority",
  "agent",
  "project",
  "tag",
  "q",
];

/** A page's search parameters, as Next hands them over. */
export type Params = Record<string, string | string[] | undefined>;

/** One parameter's first value, trimmed and capped; undefined when empty. */
export function one(params: Params, key: string): string | undefined {
  const v = params[key];
  const s = (Array.isArray(v) ? v[0] : v)?.trim();
  return s ? s.slice(0, 200) : undefined;
}

/** `v` when it is one of `list`, else undefined. */
export function member<T extends string>(list: readonly T[], v: string | undefined): T | undefined {
  return v !== undefined && (list as readonly string[]).includes(v) ? (v as T) : undefined;
}

export function parseFilters(params: Params): InboxFilters {
  const out: InboxFilters = {
    account: one(params, "account"),
    verb: member(VERBS, one(params, "verb")),
    status: member(STATUSES, one(params, "status")),
    priority: member(PRIORITIES, one(params, "priority")),
    agent: one(params, "agent"),
    project: one(params, "project"),
    tag: one(params, "tag"),
    q: one(params, "q"),
  };
  for (const k of FILTER_KEYS) if (out[k] === undefined) delete out[k];
  return out;
}

/**
 * Keyset position: the last row of a page. Open items (group 0) are ordered by priority rank,
 * then oldest first; everything else (group 1) newest first. Ids break ties.
 */
const cursorSchema = z.union([
  z.object({ g: z.literal(0), r: z.number().int().min(0).max(3), c: z.iso.datetime(), i: z.string().min(1).max(64) }),
  z.object({ g: z.literal(1), c: z.iso.datetime(), i: z.string().min(1).max(64) }),
]);
export type Cursor = z.infer<typeof cursorSchema>;

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor), "utf8").toString("base64url");
}

/** The cursor in `after`, or null (absent or unreadable: the first page). */
export function decodeCursor(after: string | undefined | null): Cursor | null {
  if (!after) return null;
  try {
    const parsed = cursorSchema.safeParse(JSON.parse(Buffer.from(after, "base64url").toString("utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** `%`, `_` and `\` match literally in the ILIKE pattern built from a search. */
export function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

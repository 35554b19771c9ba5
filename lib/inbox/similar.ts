/**
 * Similar asks (docs/inbox.md "Similar asks"): the open `confirm` and `select` asks of one agent, in
 * one account, with the same mode, the same options (values and labels, in the same order) and the
 * same title shape, shown as one row of the list and answerable with one decision. Pure: the list
 * groups the rows of its page; answering still goes ask by ask through the one verb
 * (`answerGroup`, lib/inbox/answer.ts).
 */

/** An option as the list shows and compares it: its value, and its label (the value when it has none). */
export interface ListOption {
  value: string;
  label: string;
}

/** What grouping reads of a list row (`InboxRow` has all of it). */
export interface SimilarRow {
  id: string;
  account: string;
  agentId: string;
  type: "notify" | "ask" | "task";
  status: string;
  title: string;
  mode: "select" | "input" | "confirm" | null;
  options: ListOption[] | null;
}

/** What stands for each run of digits in a title's shape. */
export const DIGITS_PLACEHOLDER = "…";

/**
 * A title's shape: the title with every maximal run of ASCII digits (0–9) replaced by "…" —
 * "Deploy build #141" and "Deploy build #7" are both "Deploy build #…", "v1.2.3" is "v….….…".
 * Everything else must match exactly: letters and their case, spaces, punctuation, other numerals. A
 * title without digits is its own shape, so identical titles share one.
 */
export function titleShape(title: string): string {
  return title.replace(/[0-9]+/g, DIGITS_PLACEHOLDER);
}

/** Whether this row may be part of a group: an open confirm or select ask with its options. */
export function groupable(row: SimilarRow): boolean {
  return (
    row.type === "ask" &&
    row.status === "open" &&
    (row.mode === "confirm" || row.mode === "select") &&
    row.options !== null &&
    row.options.length > 0
  );
}

/** The key two rows share exactly when they are similar (null: the row never groups). */
export function similarityKey(row: SimilarRow): string | null {
  if (!groupable(row)) return null;
  const options = (row.options ?? []).map((o) => [o.value, o.label]);
  return JSON.stringify([row.account, row.agentId, row.mode, options, titleShape(row.title)]);
}

export interface SimilarGroup<R extends SimilarRow> {
  kind: "group";
  key: string;
  shape: string;
  account: string;
  agentId: string;
  mode: "select" | "confirm";
  options: ListOption[];
  /** In the page's order; always two or more. */
  rows: R[];
}

export type ListEntry<R extends SimilarRow> = { kind: "row"; row: R } | SimilarGroup<R>;

/**
 * The page's rows with similar asks folded into groups: a group of two or more stands where its first
 * member stood, its members in the page's order; every other row stays where it was, on its own.
 */
export function groupSimilar<R extends SimilarRow>(rows: readonly R[]): ListEntry<R>[] {
  const byKey = new Map<string, R[]>();
  for (const r of rows) {
    const key = similarityKey(r);
    if (key === null) continue;
    const members = byKey.get(key);
    if (members) members.push(r);
    else byKey.set(key, [r]);
  }
  const out: ListEntry<R>[] = [];
  const placed = new Set<string>();
  for (const r of rows) {
    const key = similarityKey(r);
    const members = key === null ? undefined : byKey.get(key);
    if (key === null || !members || members.length < 2) {
      out.push({ kind: "row", row: r });
      continue;
    }
    if (placed.has(key)) continue;
    placed.add(key);
    out.push({
      kind: "group",
      key,
      shape: titleShape(r.title),
      account: r.account,
      agentId: r.agentId,
      mode: r.mode as "select" | "confirm",
      options: r.options ?? [],
      rows: members,
    });
  }
  return out;
}

/**
 * The options one decision may answer all these rows with: theirs, when every row is groupable and
 * they all share mode and options (values and labels, in order); null otherwise, and for no rows.
 * The bulk "answer selected" offers these.
 */
export function sharedOptions(rows: readonly SimilarRow[]): ListOption[] | null {
  const first = rows[0];
  if (!first || !rows.every(groupable)) return null;
  const keyOf = (r: SimilarRow) => JSON.stringify([r.mode, (r.options ?? []).map((o) => [o.value, o.label])]);
  const key = keyOf(first);
  return rows.every((r) => keyOf(r) === key) ? (first.options ?? []) : null;
}

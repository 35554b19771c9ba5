import { describe, expect, it } from "vitest";
import { groupSimilar, type ListOption, type SimilarRow, sharedOptions, similarityKey, titleShape } from "./similar";

const CONFIRM: ListOption[] = [
  { value: "approve", label: "Approve" },
  { value: "deny", label: "Deny" },
];
const PICK: ListOption[] = [
  { value: "a", label: "A" },
  { value: "b", label: "B" },
];

let n = 0;
const row = (title: string, over: Partial<SimilarRow> = {}): SimilarRow => ({
  id: `m${++n}`,
  account: "acme",
  agentId: "deploybot",
  type: "ask",
  status: "open",
  title,
  mode: "confirm",
  options: CONFIRM,
  ...over,
});
/** The page as groups and lone rows: a group as its member ids, a lone row as its id. */
const shapeOf = (rows: SimilarRow[]) =>
  groupSimilar(rows).map((e) => (e.kind === "group" ? e.rows.map((r) => r.id) : e.row.id));

describe("titleShape", () => {
  it("replaces every maximal run of ASCII digits with one placeholder, keeps everything else", () => {
    expect(titleShape("Deploy build #141")).toBe("Deploy build #…");
    expect(titleShape("Deploy build #7")).toBe("Deploy build #…");
    expect(titleShape("v1.22.333 to eu-2")).toBe("v….….… to eu-…");
    expect(titleShape("No digits here")).toBe("No digits here");
    expect(titleShape("deploy build #141")).not.toBe(titleShape("Deploy build #141"));
    expect(titleShape("Deploy  build #1")).not.toBe(titleShape("Deploy build #1"));
    // Other numerals are not ASCII digits.
    expect(titleShape("Build ٣")).toBe("Build ٣");
  });
});

describe("groupSimilar", () => {
  it("groups one agent's open asks of the same mode, options and shape, where the first stood", () => {
    const [a, x, b, c] = [
      row("Deploy build #141"),
      row("Something else"),
      row("Deploy build #142"),
      row("Deploy build #9"),
    ];
    const entries = groupSimilar([a!, x!, b!, c!]);
    expect(shapeOf([a!, x!, b!, c!])).toEqual([[a!.id, b!.id, c!.id], x!.id]);
    const g = entries[0];
    expect(g).toMatchObject({ kind: "group", shape: "Deploy build #…", mode: "confirm", options: CONFIRM });
  });

  it("a select ask groups with the same options in the same order", () => {
    const a = row("Pick #1", { mode: "select", options: PICK });
    const b = row("Pick #2", { mode: "select", options: [...PICK] });
    expect(shapeOf([a, b])).toEqual([[a.id, b.id]]);
  });

  it("different options, labels, order, mode, agent, account or shape do not group", () => {
    const base = row("Deploy #1", { mode: "select", options: PICK });
    const others = [
      row("Deploy #2", { mode: "select", options: [PICK[0]!, { value: "c", label: "C" }] }),
      row("Deploy #3", { mode: "select", options: [PICK[0]!, { value: "b", label: "Bee" }] }),
      row("Deploy #4", { mode: "select", options: [PICK[1]!, PICK[0]!] }),
      row("Deploy #5", { mode: "confirm", options: PICK }),
      row("Deploy #6", { mode: "select", options: PICK, agentId: "otherbot" }),
      row("Deploy #7", { mode: "select", options: PICK, account: "globex" }),
      row("Deploy v8", { mode: "select", options: PICK }),
    ];
    for (const o of others) expect(shapeOf([base, o])).toEqual([base.id, o.id]);
  });

  it("input asks, tasks, notifies and closed asks never group; a single ask is not a group", () => {
    const input = [row("Fill #1", { mode: "input", options: null }), row("Fill #2", { mode: "input", options: null })];
    expect(shapeOf(input)).toEqual(input.map((r) => r.id));
    const tasks = [
      row("Do #1", { type: "task", mode: null, options: null }),
      row("Do #2", { type: "task", mode: null, options: null }),
    ];
    expect(shapeOf(tasks)).toEqual(tasks.map((r) => r.id));
    const notes = [
      row("Note #1", { type: "notify", mode: null, options: null }),
      row("Note #2", { type: "notify", mode: null, options: null }),
    ];
    expect(shapeOf(notes)).toEqual(notes.map((r) => r.id));
    const closed = [row("Deploy #1", { status: "answered" }), row("Deploy #2")];
    expect(shapeOf(closed)).toEqual(closed.map((r) => r.id));
    const single = row("Deploy #1");
    expect(shapeOf([single])).toEqual([single.id]);
    expect(similarityKey(input[0]!)).toBeNull();
  });
});

describe("sharedOptions", () => {
  it("the options when every row is an open confirm/select ask of the same mode and options, whatever the title or agent", () => {
    expect(sharedOptions([row("A"), row("Totally different", { agentId: "x" })])).toEqual(CONFIRM);
  });
  it("null for mixed modes or options, an input ask, a task, or nothing selected", () => {
    expect(sharedOptions([row("A"), row("B", { mode: "select", options: PICK })])).toBeNull();
    expect(
      sharedOptions([row("A", { mode: "select", options: PICK }), row("B", { mode: "select", options: [PICK[0]!] })]),
    ).toBeNull();
    expect(sharedOptions([row("A"), row("B", { mode: "input", options: null })])).toBeNull();
    expect(sharedOptions([row("A"), row("B", { type: "task", mode: null, options: null })])).toBeNull();
    expect(sharedOptions([])).toBeNull();
  });
});

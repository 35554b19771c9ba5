/**
 * The whiteboard as a test: `docs/architecture.json` names the parts of the Hub (a file belongs to the
 * first part whose patterns match it), what each part may import — parts of ours at run time, parts
 * with `import type` only, npm packages — and the nevers. This file reads every source file's imports
 * (type-only ones included — a type cycle is still a cycle for a reader; a workspace package imported
 * by name, `@ma2h/protocol/x`, is its source file) and fails on
 * - a file that belongs to no part, or an import of ours that resolves to no part;
 * - an import its part's allow-lists do not name;
 * - each never: an import cycle between files or between the folders of `lib/`; a run-time path (type
 *   imports do not count) from a part to a file; a part that reaches, through any chain of imports,
 *   anything outside the parts it may reach; a section of `app/` importing another section's private
 *   files (`_components/`, actions).
 * It also writes the "Imports" column of the layers table in `docs/ARCHITECTURE.md` from the graph and
 * fails when the committed table differs: `UPDATE=1 npx vitest run test/architecture.test.ts`
 * rewrites it. The checks run on a made-up graph first, so a broken scan cannot pass.
 */
// covers: docs/architecture.json, docs/ARCHITECTURE.md
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./support/hub";
import { type Edge, type Graph, importGraph } from "./support/import-graph";

/** Where an import of ours may point: a repo path under one of these is "ours", anything else a package. */
const OURS = /^(lib|app|components|cli|workers|server|scripts|packages|test)\//;

interface Part {
  files: string[];
  job: string;
  imports: string[];
  typeImports?: string[];
  packages: string[];
  packagesNever?: string[];
}
type Never =
  | { name: string; kind: "no-cycle"; unit: "file" | "lib-folder" }
  | { name: string; kind: "no-runtime-path"; from: string[]; to: string }
  | { name: string; kind: "reaches-only"; from: string[]; only: string[] }
  | { name: string; kind: "section-private"; root: string; private: string[] };
interface Architecture {
  parts: Record<string, Part>;
  nevers: Never[];
}

const ARCHITECTURE_JSON = "docs/architecture.json";
const ARCHITECTURE_MD = "docs/ARCHITECTURE.md";
const architecture = JSON.parse(readFileSync(join(repoRoot, ARCHITECTURE_JSON), "utf8")) as Architecture;

// ---------------------------------------------------------------------------------------------------
// The checker: a graph and an architecture in, violations out

/** `**` any run of folders (or none), `*` anything within one name — in a package name, anything. */
function glob(pattern: string, anyStar = false): RegExp {
  let re = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (pattern.startsWith("**/", i)) {
      re += "(?:.*/)?";
      i += 2;
    } else if (pattern.startsWith("**", i)) {
      re += ".*";
      i += 1;
    } else if (c === "*") re += anyStar ? ".*" : "[^/]*";
    else re += c.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}
const matchesAny = (patterns: string[], s: string) => patterns.some((p) => glob(p).test(s));
const packageMatchesAny = (patterns: string[], s: string) => patterns.some((p) => glob(p, true).test(s));

function partOf(arch: Architecture, file: string): string | null {
  for (const [name, part] of Object.entries(arch.parts)) if (matchesAny(part.files, file)) return name;
  return null;
}

/** A resolved repo path of ours, as opposed to a package specifier (`zod`, `node:fs`, `next/headers`). */
const isOurs = (to: string) => OURS.test(to);

interface Violation {
  rule: string;
  file: string;
  imports?: string;
  path?: string[];
}

/** Strongly connected components with more than one member (or a self-loop): the cycles. */
function cycles(nodes: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of nodes.get(v) ?? []) {
      if (!nodes.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (nodes.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of nodes.keys()) if (!idx.has(v)) visit(v);
  return out;
}

/** `lib/<folder>` of a file (a file directly in lib/ is its own unit). */
const libUnit = (f: string) =>
  f.startsWith("lib/")
    ? f
        .split("/")
        .slice(0, 2)
        .join("/")
        .replace(/\.tsx?$/, "")
    : null;

function unitEdges(g: Graph, unit: (f: string) => string | null): Map<string, string[]> {
  const out = new Map<string, Set<string>>();
  for (const [f, es] of g) {
    const from = unit(f);
    if (!from) continue;
    const set = out.get(from) ?? out.set(from, new Set()).get(from)!;
    for (const e of es) {
      const to = unit(e.to);
      if (to && to !== from) set.add(to);
    }
  }
  return new Map([...out].map(([k, v]) => [k, [...v]]));
}

/** Breadth-first from `start` over the edges `follow` keeps: each reached file with the path to it. */
function reach(g: Graph, start: string, follow: (e: Edge) => boolean): Map<string, string[]> {
  const paths = new Map<string, string[]>([[start, [start]]]);
  const queue = [start];
  while (queue.length > 0) {
    const f = queue.shift()!;
    for (const e of g.get(f) ?? []) {
      if (!follow(e) || !isOurs(e.to) || paths.has(e.to)) continue;
      paths.set(e.to, [...paths.get(f)!, e.to]);
      queue.push(e.to);
    }
  }
  return paths;
}

/** The section of an `app/` file: its first folder under the root, or "" for a file at the root. */
const sectionOf = (root: string, f: string) => {
  const rest = f.slice(root.length + 1).split("/");
  return rest.length > 1 ? rest[0]! : "";
};

function allowListViolations(g: Graph, arch: Architecture): Violation[] {
  const out: Violation[] = [];
  for (const [file, es] of g) {
    const from = partOf(arch, file);
    if (!from) {
      out.push({ rule: "every file belongs to a part", file });
      continue;
    }
    const part = arch.parts[from]!;
    for (const e of es) {
      if (isOurs(e.to)) {
        const to = partOf(arch, e.to);
        if (!to) out.push({ rule: "every import of ours is a file of a part", file, imports: e.to });
        else if (to !== from && !part.imports.includes(to) && !(e.typeOnly && part.typeImports?.includes(to)))
          out.push({ rule: `${from} may not import ${to}${e.typeOnly ? " (even types)" : ""}`, file, imports: e.to });
      } else if (!packageMatchesAny(part.packages, e.to) || packageMatchesAny(part.packagesNever ?? [], e.to)) {
        out.push({ rule: `${from} may not import the package ${e.to}`, file, imports: e.to });
      }
    }
  }
  return out;
}

function neverViolations(g: Graph, arch: Architecture, never: Never): Violation[] {
  const rule = never.name;
  const filesOf = (parts: string[]) => [...g.keys()].filter((f) => parts.includes(partOf(arch, f) ?? ""));
  switch (never.kind) {
    case "no-cycle": {
      const nodes =
        never.unit === "file" ? new Map([...g].map(([f, es]) => [f, es.map((e) => e.to)])) : unitEdges(g, libUnit);
      return cycles(nodes).map((c) => ({ rule, file: c[0]!, path: c }));
    }
    case "no-runtime-path":
      return filesOf(never.from).flatMap((f) => {
        const path = reach(g, f, (e) => !e.typeOnly).get(never.to);
        return path ? [{ rule, file: f, imports: never.to, path }] : [];
      });
    case "reaches-only":
      return filesOf(never.from).flatMap((f) =>
        [...reach(g, f, () => true)]
          .filter(([to]) => !never.only.includes(partOf(arch, to) ?? ""))
          .map(([to, path]) => ({ rule, file: f, imports: to, path })),
      );
    case "section-private":
      return [...g].flatMap(([file, es]) =>
        es
          .filter(
            (e) =>
              e.to.startsWith(`${never.root}/`) &&
              matchesAny(never.private, e.to) &&
              (!file.startsWith(`${never.root}/`) || sectionOf(never.root, file) !== sectionOf(never.root, e.to)),
          )
          .map((e) => ({ rule, file, imports: e.to })),
      );
  }
}

function check(g: Graph, arch: Architecture): Violation[] {
  return [...allowListViolations(g, arch), ...arch.nevers.flatMap((n) => neverViolations(g, arch, n))];
}

// ---------------------------------------------------------------------------------------------------
// The "Imports" column of the layers table

/** What a row's files import, named by lib/ folder (or module) for lib/, by part for the rest. */
function importsColumn(g: Graph, arch: Architecture, rowFolders: string[], order: string[]): string {
  const inRow = (f: string) => rowFolders.some((p) => f.startsWith(p));
  const name = (f: string) => {
    const unit = libUnit(f);
    return unit ? unit.slice("lib/".length) : partOf(arch, f)!;
  };
  const rowIsLib = rowFolders.every((p) => p.startsWith("lib/"));
  const runtime = new Set<string>();
  const types = new Set<string>();
  const packages = new Set<string>();
  // A row whose part lists its packages one by one (protocol, markdown, the SDK) shows them too.
  const restricted = rowFolders.some((p) => !arch.parts[partOf(arch, `${p}index.ts`) ?? ""]?.packages.includes("*"));
  for (const [f, es] of g) {
    if (!inRow(f)) continue;
    for (const e of es) {
      if (!isOurs(e.to)) {
        if (restricted)
          packages.add(
            e.to.startsWith("node:")
              ? e.to
              : e.to
                  .split("/")
                  .slice(0, e.to.startsWith("@") ? 2 : 1)
                  .join("/"),
          );
        continue;
      }
      if (inRow(e.to)) continue;
      const n = rowIsLib || !e.to.startsWith("lib/") ? name(e.to) : partOf(arch, e.to)!;
      (e.typeOnly ? types : runtime).add(n);
    }
  }
  for (const n of runtime) types.delete(n);
  const rank = (n: string) => {
    const i = order.indexOf(n);
    return i === -1 ? order.length : i;
  };
  const sorted = (s: Set<string>) => [...s].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const pieces: string[] = [];
  pieces.push(runtime.size > 0 ? sorted(runtime).join(", ") : "nothing of ours");
  if (types.size > 0) pieces.push(`types: ${sorted(types).join(", ")}`);
  if (packages.size > 0)
    pieces.push(
      [...packages]
        .sort()
        .map((p) => `\`${p}\``)
        .join(", "),
    );
  return pieces.join("; ");
}

/** The layers table with its "Imports" column regenerated (and every column padded again). */
function regenerateTable(markdown: string, g: Graph, arch: Architecture): string {
  const lines = markdown.split("\n");
  const start = lines.findIndex((l) => /^\|\s*Folder\s*\|\s*Job\s*\|\s*Imports\s*\|$/.test(l));
  if (start === -1) throw new Error(`${ARCHITECTURE_MD}: no | Folder | Job | Imports | table`);
  let end = start + 2;
  while (end < lines.length && lines[end]!.startsWith("|")) end++;
  const rows = lines.slice(start + 2, end).map((l) =>
    l
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim()),
  );
  const folderOf = (cell: string) => [...cell.matchAll(/`([^`]+\/)`/g)].map((m) => m[1]!);
  const order = [
    "protocol",
    ...rows.flatMap((r) => folderOf(r[0]!).map((f) => f.replace(/^lib\//, "").replace(/\/$/, ""))),
  ];
  const partOrder = Object.keys(arch.parts);
  for (const r of rows) r[2] = importsColumn(g, arch, folderOf(r[0]!), [...order, ...partOrder]);
  const table = [["Folder", "Job", "Imports"], ...rows];
  const widths = [0, 1, 2].map((i) => Math.max(...table.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  const out = [line(table[0]!), `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`, ...rows.map(line)];
  return [...lines.slice(0, start), ...out, ...lines.slice(end)].join("\n");
}

// ---------------------------------------------------------------------------------------------------

describe("the checker catches what it looks for (a made-up bad graph)", () => {
  const edge = (to: string, typeOnly = false): Edge => ({ to, typeOnly, dynamic: false });
  const bad: Graph = new Map([
    // the chain that once passed: a component's run-time import reaches the database
    ["components/PreferenceFields.tsx", [edge("lib/notifications/preferences.ts"), edge("lib/audit/log.ts", true)]],
    ["lib/notifications/preferences.ts", [edge("lib/db.ts"), edge("packages/protocol/src/errors.ts")]],
    ["lib/db.ts", [edge("@prisma/client")]],
    ["lib/audit/log.ts", [edge("lib/db.ts")]],
    ["packages/protocol/src/errors.ts", [edge("zod")]],
    // protocol reaching the database through a type import does not count; at run time it does
    ["packages/protocol/src/x.ts", [edge("lib/audit/log.ts", true), edge("lib/notifications/preferences.ts")]],
    ["lib/messages/x.ts", [edge("next/headers"), edge("lib/messages/y.ts")]],
    ["lib/messages/y.ts", [edge("lib/messages/x.ts")]],
    ["lib/inbox/a.ts", [edge("lib/presence/b.ts")]],
    ["lib/presence/b.ts", [edge("lib/inbox/c.ts")]],
    ["lib/inbox/c.ts", []],
    ["cli/x.ts", [edge("app/admin/actions.ts")]],
    ["app/admin/actions.ts", []],
    ["app/inbox/page.tsx", [edge("app/settings/_components/Form.tsx"), edge("app/inbox/_components/Row.tsx")]],
    ["app/settings/_components/Form.tsx", []],
    ["app/inbox/_components/Row.tsx", []],
    [
      "packages/agent/src/x.ts",
      [edge("packages/protocol/src/errors.ts"), edge("zod"), edge("lib/http/body.ts", true), edge("ioredis")],
    ],
    ["lib/http/body.ts", []],
    ["elsewhere/x.ts", []],
  ]);
  const found = check(bad, architecture);
  const rules = new Set(found.map((v) => v.rule));

  it("flags every never on its case", () => {
    for (const never of architecture.nevers) expect(rules, never.name).toContain(never.name);
    const path = found.find(
      (v) => v.rule.startsWith("no run-time path") && v.file === "components/PreferenceFields.tsx",
    );
    expect(path?.path).toEqual(["components/PreferenceFields.tsx", "lib/notifications/preferences.ts", "lib/db.ts"]);
    // a type-only import is no run-time path: protocol/x reaches db only through preferences.ts
    expect(
      found.find((v) => v.rule.startsWith("no run-time path") && v.file === "packages/protocol/src/x.ts")?.path,
    ).toEqual(["packages/protocol/src/x.ts", "lib/notifications/preferences.ts", "lib/db.ts"]);
    expect(found.filter((v) => v.rule.startsWith("no app/<section>")).map((v) => v.imports)).toEqual([
      "app/admin/actions.ts",
      "app/settings/_components/Form.tsx",
    ]);
    expect(found.filter((v) => v.rule.startsWith("the SDK")).map((v) => v.imports)).toEqual(["lib/http/body.ts"]);
  });

  it("flags what the allow-lists do not name", () => {
    const pairs = found.filter((v) => !architecture.nevers.some((n) => n.name === v.rule)).map((v) => [v.rule, v.file]);
    expect(pairs).toEqual(
      expect.arrayContaining([
        ["components may not import domain", "components/PreferenceFields.tsx"],
        ["protocol may not import domain", "packages/protocol/src/x.ts"],
        ["protocol may not import domain (even types)", "packages/protocol/src/x.ts"],
        ["domain may not import the package next/headers", "lib/messages/x.ts"],
        ["cli may not import pages", "cli/x.ts"],
        ["sdk may not import http (even types)", "packages/agent/src/x.ts"],
        ["sdk may not import the package ioredis", "packages/agent/src/x.ts"],
        ["every file belongs to a part", "elsewhere/x.ts"],
      ]),
    );
    // allowed: a component's type-only view model, the SDK's protocol and zod, lib's own folders
    expect(found.some((v) => v.imports === "lib/audit/log.ts" && v.file === "components/PreferenceFields.tsx")).toBe(
      false,
    );
    expect(found.some((v) => v.file === "packages/agent/src/x.ts" && /zod|errors/.test(v.imports ?? ""))).toBe(false);
  });

  it("finds cycles, and only cycles", () => {
    expect(
      cycles(
        new Map([
          ["a", ["b"]],
          ["b", ["c"]],
          ["c", ["a"]],
          ["d", ["a"]],
        ]),
      ),
    ).toEqual([["a", "b", "c"]]);
    expect(cycles(new Map([["a", ["a"]]]))).toEqual([["a"]]);
    const libCycles = found.filter((v) => v.rule === "no import cycle between the folders of lib/").map((v) => v.path);
    expect(libCycles).toContainEqual(["lib/inbox", "lib/presence"]);
    expect(libCycles).not.toContainEqual(expect.arrayContaining(["lib/audit"]));
  });

  it("writes the Imports column from the graph", () => {
    const md = [
      "text",
      "| Folder | Job | Imports |",
      "| - | - | - |",
      "| `lib/notifications/` | tells people | stale |",
      "| `components/` | shared | stale |",
      "| `packages/protocol/` | wire | stale |",
      "after",
    ].join("\n");
    const out = regenerateTable(md, bad, architecture).split("\n");
    // padded into columns again
    expect(new Set(out.slice(1, 6).map((l) => l.length)).size).toBe(1);
    expect(out.map((l) => l.replace(/ {2,}/g, " "))).toEqual([
      "text",
      "| Folder | Job | Imports |",
      expect.stringMatching(/^\| -+ \| -+ \| -+ \|$/),
      "| `lib/notifications/` | tells people | protocol, db |",
      // a row outside lib/ names parts; a type import of a part it imports at run time is not repeated
      "| `components/` | shared | domain |",
      // a part with a package allow-list lists its packages
      "| `packages/protocol/` | wire | domain; `zod` |",
      "after",
    ]);
  });
});

describe("the import graph of this repository", () => {
  const graph = importGraph();
  const found = check(graph, architecture);

  it("reads the whole tree", () => {
    expect(graph.size).toBeGreaterThan(150);
    expect(graph.get("lib/messages/submit.ts")?.some((e) => e.to === "packages/protocol/src/message.ts")).toBe(true);
  });

  it("every part names real files, and every never a real part", () => {
    for (const [name, part] of Object.entries(architecture.parts)) {
      expect(
        [...graph.keys()].some((f) => partOf(architecture, f) === name),
        name,
      ).toBe(true);
      for (const p of [...part.imports, ...(part.typeImports ?? [])])
        expect(architecture.parts, `${name} → ${p}`).toHaveProperty(p);
    }
    for (const n of architecture.nevers)
      if ("from" in n) for (const p of n.from) expect(architecture.parts, n.name).toHaveProperty(p);
  });

  it("imports only what docs/architecture.json allows", () => {
    expect(found.filter((v) => !architecture.nevers.some((n) => n.name === v.rule))).toEqual([]);
  });

  it.each(architecture.nevers.map((n) => n.name))("never: %s", (name) => {
    expect(found.filter((v) => v.rule === name)).toEqual([]);
  });

  it(`${ARCHITECTURE_MD}: the layers table has a row for every folder of lib/`, () => {
    const md = readFileSync(join(repoRoot, ARCHITECTURE_MD), "utf8");
    const rows = new Set([...md.matchAll(/^\| `(lib\/[^`]+\/)`/gm)].map((m) => m[1]));
    const folders = readdirSync(join(repoRoot, "lib"), { withFileTypes: true })
      .filter((d) => d.isDirectory() && d.name !== "generated")
      .map((d) => `lib/${d.name}/`);
    expect(folders.length).toBeGreaterThan(10);
    expect(folders.filter((f) => !rows.has(f))).toEqual([]);
  });

  it(`${ARCHITECTURE_MD}: the Imports column is the graph's (UPDATE=1 rewrites it)`, () => {
    const path = join(repoRoot, ARCHITECTURE_MD);
    const committed = readFileSync(path, "utf8");
    const generated = regenerateTable(committed, graph, architecture);
    if (process.env.UPDATE === "1" && generated !== committed) writeFileSync(path, generated);
    else expect(committed).toBe(generated);
  });
});

/**
 * The layering, kept by a test: reads every source file's imports (type-only ones included — a type
 * cycle is still a cycle for a reader) and fails on
 * - an import cycle between files, or between the folders of `lib/`;
 * - `lib/protocol` importing anything of ours outside itself (it is the pure wire contract);
 * - `lib/` outside `lib/next/` importing `next`, `next-auth` or `react` (the domain runs in workers
 *   and the CLI too);
 * - `components/` importing the database or a domain module (components get their data as props;
 *   type-only imports of view models are fine);
 * - `workers/`, `cli/` or `server/` importing `app/`;
 * - `packages/agent` (the published SDK) importing anything of ours but `lib/protocol` and itself, or a
 *   package outside its few runtime dependencies (it must install and run with nothing of the Hub).
 * The checks themselves are exercised on small made-up graphs first, so a broken scan cannot pass.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./support/hub";

const ROOTS = ["lib", "app", "components", "cli", "workers", "server", "scripts", "packages/agent/src"];
const SKIP = /(^|\/)(generated|node_modules)\//;

interface Edge {
  to: string; // a repo file (relative path) or a bare package specifier
  typeOnly: boolean;
}
type Graph = Map<string, Edge[]>;

function sourceFiles(dir: string): string[] {
  const abs = join(repoRoot, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs).flatMap((name) => {
    const rel = `${dir}/${name}`;
    if (SKIP.test(`${rel}/`)) return [];
    if (statSync(join(repoRoot, rel)).isDirectory()) return sourceFiles(rel);
    return /\.(ts|tsx)$/.test(name) && !/\.d\.ts$/.test(name) && !/\.test\.tsx?$/.test(name) ? [rel] : [];
  });
}

const IMPORT =
  /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^"';]*?\sfrom\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** A specifier as a repo file, or null for a package. */
function resolveSpecifier(from: string, spec: string): string | null {
  let base: string;
  if (spec.startsWith("@/")) base = spec.slice(2);
  else if (spec.startsWith(".")) base = relative(repoRoot, resolve(repoRoot, dirname(from), spec));
  else return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`]) {
    const abs = join(repoRoot, candidate);
    if (existsSync(abs) && statSync(abs).isFile()) return candidate;
  }
  return base.replace(/\.js$/, ".ts");
}

function importGraph(): Graph {
  const graph: Graph = new Map();
  for (const file of ROOTS.flatMap(sourceFiles)) {
    const text = readFileSync(join(repoRoot, file), "utf8");
    const edges: Edge[] = [];
    for (const m of text.matchAll(IMPORT)) {
      const spec = (m[3] ?? m[4]) as string;
      edges.push({ to: resolveSpecifier(file, spec) ?? spec, typeOnly: m[2] !== undefined });
    }
    graph.set(file, edges);
  }
  return graph;
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

const fileEdges = (g: Graph) => new Map([...g].map(([f, es]) => [f, es.map((e) => e.to)]));

/** `lib/<folder>` of a file (a file directly in lib/ is its own unit). */
const libUnit = (f: string) =>
  f.startsWith("lib/")
    ? f
        .split("/")
        .slice(0, 2)
        .join("/")
        .replace(/\.tsx?$/, "")
    : null;

function folderEdges(g: Graph): Map<string, string[]> {
  const out = new Map<string, Set<string>>();
  for (const [f, es] of g) {
    const from = libUnit(f);
    if (!from) continue;
    const set = out.get(from) ?? out.set(from, new Set()).get(from)!;
    for (const e of es) {
      const to = libUnit(e.to);
      if (to && to !== from) set.add(to);
    }
  }
  return new Map([...out].map(([k, v]) => [k, [...v]]));
}

const PACKAGE_ONLY_UI = /^(next|next-auth|react|react-dom)(\/|$)/;
const DOMAIN =
  /^lib\/(db|generated|principals|messages|mailbox|delivery|jobs|inbox|audit|pubsub|presence|keys|rate-limit|redis|secrets|capability|health)(\/|\.|$)/;

interface Violation {
  file: string;
  imports: string;
}

function violations(g: Graph, rule: (file: string, edge: Edge) => boolean): Violation[] {
  return [...g].flatMap(([file, es]) => es.filter((e) => rule(file, e)).map((e) => ({ file, imports: e.to })));
}

/** What the published SDK may import besides itself and lib/protocol: its runtime dependencies. */
const AGENT_PACKAGE_DEPS = /^(node:|canonicalize$|zod$|@noble\/curves\/|@modelcontextprotocol\/sdk\/)/;

const RULES: Record<string, (file: string, e: Edge) => boolean> = {
  "lib/protocol imports nothing of ours outside itself": (f, e) =>
    f.startsWith("lib/protocol/") &&
    !e.to.startsWith("lib/protocol/") &&
    /^(lib|app|components|cli|workers|server|scripts)\//.test(e.to),
  "lib/ outside lib/next imports no next, next-auth or react": (f, e) =>
    f.startsWith("lib/") && !f.startsWith("lib/next/") && PACKAGE_ONLY_UI.test(e.to),
  "components/ imports no database or domain module (types excepted)": (f, e) =>
    f.startsWith("components/") && !e.typeOnly && (DOMAIN.test(e.to) || e.to.startsWith("app/")),
  "workers/, cli/ and server/ import nothing from app/": (f, e) =>
    /^(workers|cli|server)\//.test(f) && e.to.startsWith("app/"),
  "packages/agent imports only itself, lib/protocol and its runtime dependencies": (f, e) =>
    f.startsWith("packages/agent/") &&
    !e.to.startsWith("packages/agent/src/") &&
    !e.to.startsWith("lib/protocol/") &&
    !AGENT_PACKAGE_DEPS.test(e.to),
};

describe("the checks catch what they look for (made-up graphs)", () => {
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
    expect(
      cycles(
        new Map([
          ["a", ["b"]],
          ["b", []],
        ]),
      ),
    ).toEqual([]);
  });

  it("each rule flags its case", () => {
    const g: Graph = new Map([
      ["lib/protocol/x.ts", [{ to: "lib/db.ts", typeOnly: false }]],
      ["lib/messages/x.ts", [{ to: "next/headers", typeOnly: false }]],
      [
        "components/X.tsx",
        [
          { to: "lib/principals/members.ts", typeOnly: false },
          { to: "lib/inbox/view.ts", typeOnly: true },
        ],
      ],
      ["cli/x.ts", [{ to: "app/admin/actions.ts", typeOnly: false }]],
      [
        "packages/agent/src/x.ts",
        [
          { to: "lib/protocol/jcs.ts", typeOnly: false },
          { to: "zod", typeOnly: false },
          { to: "lib/db.ts", typeOnly: false },
        ],
      ],
    ]);
    for (const [name, rule] of Object.entries(RULES)) expect(violations(g, rule), name).toHaveLength(1);
  });
});

describe("the import graph of this repository", () => {
  const graph = importGraph();

  it("reads the whole tree", () => {
    expect(graph.size).toBeGreaterThan(150);
    expect(graph.get("lib/messages/submit.ts")?.some((e) => e.to === "lib/protocol/message.ts")).toBe(true);
  });

  it("has no import cycle between files", () => {
    expect(cycles(fileEdges(graph))).toEqual([]);
  });

  it("has no import cycle between the folders of lib/", () => {
    expect(cycles(folderEdges(graph))).toEqual([]);
  });

  it.each(Object.keys(RULES))("%s", (name) => {
    expect(violations(graph, RULES[name]!)).toEqual([]);
  });
});

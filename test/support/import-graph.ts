/**
 * The repository's import graph as its sources say it (test/architecture.test.ts checks it against
 * docs/architecture.json; test/start-cost.test.ts reads what a process loads at start): each source
 * file's imports — type-only ones and `import()` marked — resolved to repo files (`@/…`, relative, a
 * workspace package imported by name, `@ma2h/protocol/x`, is its source file) or left as the bare
 * package specifier.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { repoRoot } from "./hub";

const ROOTS = [
  "lib",
  "app",
  "components",
  "cli",
  "workers",
  "server",
  "scripts",
  "packages/protocol/src",
  "packages/agent/src",
  "test/support",
];
const SKIP = /(^|\/)(generated|node_modules)\//;

export interface Edge {
  to: string; // a repo file (relative path) or a bare package specifier
  typeOnly: boolean;
  /** `import("…")`: loaded when the code runs, not with the importing module. */
  dynamic: boolean;
}
export type Graph = Map<string, Edge[]>;

/**
 * The workspace packages imported by name whose `exports` map `./*` to TypeScript sources, as
 * [`<name>/`, `packages/<folder>/<sources>/`]: `@ma2h/protocol/errors` is packages/protocol/src/errors.ts.
 */
const WORKSPACE_SOURCES: [string, string][] = readdirSync(join(repoRoot, "packages")).flatMap((folder) => {
  const manifest = join(repoRoot, "packages", folder, "package.json");
  if (!existsSync(manifest)) return [];
  const { name, exports } = JSON.parse(readFileSync(manifest, "utf8")) as { name: string; exports?: unknown };
  const target = (exports as Record<string, unknown> | undefined)?.["./*"];
  if (typeof target !== "string" || !/^\.\/(.+\/)?\*\.ts$/.test(target)) return [];
  return [[`${name}/`, `packages/${folder}/${target.slice(2, -"*.ts".length)}`] as [string, string]];
});

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
export function resolveSpecifier(from: string, spec: string): string | null {
  let base: string;
  const workspace = WORKSPACE_SOURCES.find(([name]) => spec.startsWith(name));
  if (spec.startsWith("@/")) base = spec.slice(2);
  else if (spec.startsWith(".")) base = relative(repoRoot, resolve(repoRoot, dirname(from), spec));
  else if (workspace) base = `${workspace[1]}${spec.slice(workspace[0].length)}`;
  else return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`]) {
    const abs = join(repoRoot, candidate);
    if (existsSync(abs) && statSync(abs).isFile()) return candidate;
  }
  return base.replace(/\.js$/, ".ts");
}

export function importGraph(): Graph {
  const graph: Graph = new Map();
  for (const file of ROOTS.flatMap(sourceFiles)) {
    const text = readFileSync(join(repoRoot, file), "utf8");
    const edges: Edge[] = [];
    for (const m of text.matchAll(IMPORT)) {
      const spec = (m[3] ?? m[4]) as string;
      edges.push({
        to: resolveSpecifier(file, spec) ?? spec,
        typeOnly: m[2] !== undefined,
        dynamic: m[4] !== undefined,
      });
    }
    graph.set(file, edges);
  }
  return graph;
}

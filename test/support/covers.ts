/**
 * Which test is a module's (CONTRIBUTING.md, "Finding a module's test"). Two ways to say it:
 * - colocated: a test outside test/ covers its sibling of the same name, `lib/x/y.test.ts` →
 *   `lib/x/y.ts` (or `y.tsx`);
 * - a `// covers: <path>, <path>, …` line, required in every test file under test/ (but test/support/),
 *   and in a colocated test that has no sibling: the repo paths of the modules the file is the main
 *   test of, most important first; a path ending in `/` names a whole folder.
 * test/covers.test.ts holds every vitest file to this; `npm run test:find -- <file>` asks it which
 * tests cover a file (scripts/test-find.ts).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, posix } from "node:path";
import { filesByTier } from "./tiers.mjs";

/** What the checks read: the vitest files and the repo around them (a made-up one in the test). */
export interface TestTree {
  /** Every vitest file, repo-relative, `/`-separated. */
  readonly testFiles: readonly string[];
  read(path: string): string;
  /** What a repo-relative path is, if anything (a trailing `/` is ignored). */
  kind(path: string): "file" | "folder" | null;
}

/** The repository at `root`: its vitest files are the ones vitest.config.ts runs (test/support/tiers.mjs). */
export function repoTree(root: string): TestTree {
  return {
    testFiles: Object.values(filesByTier(root)).flat().sort(),
    read: (path) => readFileSync(join(root, path), "utf8"),
    kind: (path) => {
      const abs = join(root, path.replace(/\/$/, ""));
      if (!existsSync(abs)) return null;
      return statSync(abs).isDirectory() ? "folder" : "file";
    },
  };
}

const COVERS = /^\/\/ covers:(.*)$/gm;
/** Six at most: the modules a file is really about, not everything it touches. */
export const MAX_COVERED = 6;

/** The entries of each `// covers:` line of a source (empty when it has none). */
export function coversLines(source: string): string[][] {
  return [...source.matchAll(COVERS)].map((m) => (m[1] ?? "").split(",").map((entry) => entry.trim()));
}

/** Why a test file without a covers line breaks the rule, or null when it needs none. */
function missingLine(tree: TestTree, testFile: string): string | null {
  if (testFile.startsWith("test/support/")) return null;
  if (testFile.startsWith("test/")) return 'no "// covers:" line';
  return siblingOf(tree, testFile) === null ? 'no sibling source of its name and no "// covers:" line' : null;
}

/** The colocated source a test outside test/ covers, if it exists: `y.test.ts` → `y.ts` or `y.tsx`. */
export function siblingOf(tree: TestTree, testFile: string): string | null {
  if (testFile.startsWith("test/")) return null;
  const stem = testFile.replace(/\.test\.tsx?$/, "");
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`]) if (tree.kind(candidate) === "file") return candidate;
  return null;
}

/** What is wrong with one covers entry, or null. */
function entryProblem(tree: TestTree, entry: string): string | null {
  if (entry === "") return "an empty entry";
  if (entry.startsWith("/") || entry.startsWith("./") || posix.normalize(entry) !== entry)
    return `"${entry}" is not a plain repo-relative path`;
  const kind = tree.kind(entry);
  if (kind === null) return `"${entry}" does not exist`;
  if (entry.endsWith("/") && kind !== "folder") return `"${entry}" is not a folder`;
  if (!entry.endsWith("/") && kind !== "file") return `"${entry}" is a folder: write it "${entry}/"`;
  return null;
}

/** Every broken rule, as `<test file>: <what>`; empty when the tree keeps them all. */
export function coverageProblems(tree: TestTree): string[] {
  const problems: string[] = [];
  for (const file of tree.testFiles) {
    const lines = coversLines(tree.read(file));
    if (lines.length > 1) problems.push(`${file}: ${lines.length} covers lines, one at most`);
    const [entries] = lines;
    if (entries === undefined) {
      const missing = missingLine(tree, file);
      if (missing !== null) problems.push(`${file}: ${missing}`);
      continue;
    }
    if (entries.length > MAX_COVERED)
      problems.push(`${file}: ${entries.length} covered paths, ${MAX_COVERED} at most (the main ones)`);
    for (const entry of entries) {
      const problem = entryProblem(tree, entry);
      if (problem !== null) problems.push(`${file}: ${problem}`);
    }
  }
  return problems;
}

/** Whether a covers entry names a source file: the file itself, or a folder above it. */
function names(entry: string, source: string): boolean {
  return entry.endsWith("/") ? source.startsWith(entry) : entry === source;
}

/**
 * The tests that cover a source file: its colocated test first, then every test whose covers line
 * names it or a folder above it — those that name it earlier in their line (their main subject) first.
 */
export function testsCovering(tree: TestTree, source: string): string[] {
  const colocated = tree.testFiles.filter((file) => siblingOf(tree, file) === source);
  const named: { file: string; rank: number }[] = [];
  for (const file of tree.testFiles) {
    if (colocated.includes(file)) continue;
    for (const entries of coversLines(tree.read(file))) {
      const rank = entries.findIndex((entry) => names(entry, source));
      if (rank >= 0) named.push({ file, rank });
    }
  }
  named.sort((a, b) => a.rank - b.rank);
  return [...colocated, ...new Set(named.map((n) => n.file))];
}

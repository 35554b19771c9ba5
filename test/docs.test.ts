/**
 * The docs name real files: pure file reads, no server. In README.md, CONTRIBUTING.md, docs/*.md and
 * docs/decisions/*.md,
 * outside fenced code blocks:
 * - every relative Markdown link `[text](path)` / `[text](path#anchor)` / `[text](#anchor)` names an
 *   existing file or folder (resolved from the linking file), and an anchor into a `.md` file is the
 *   GitHub slug of one of its headings;
 * - every repo path in a code span, and in a bracketed citation such as `[test/resolve.test.ts]`,
 *   exists. A repo path is a token with a `/` whose first segment is one of the repo's top-level
 *   folders (`lib/…`, `app/…`, `test/…`, …), read from the repo root; a leading `./` is dropped, and a
 *   token holding a glob or placeholder (`*`, `<`, `>`, `{`, `}`, `…`) is skipped. Next's route
 *   folders (`[id]`, `[...path]`) are literal.
 * The checks are first run on a made-up text, so a scan that finds nothing cannot pass.
 */
// covers: docs/, README.md, CONTRIBUTING.md
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repoRoot = fileURLToPath(new URL("..", import.meta.url));

/** Top-level folders a code-span path may start with (not hidden, not build or install output). */
const TOP_LEVEL = new Set(
  readdirSync(repoRoot).filter(
    (name) =>
      !name.startsWith(".") &&
      !["node_modules", "test-results", "playwright-report"].includes(name) &&
      statSync(join(repoRoot, name)).isDirectory(),
  ),
);

/** GitHub's heading anchor: lower case, punctuation dropped, each space a hyphen, repeats numbered. */
function headingSlugs(markdown: string): Set<string> {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const text = m[1]!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/[`*]/g, "")
      .trim();
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    slugs.add(n === 0 ? base : `${base}-${n}`);
  }
  return slugs;
}

/** The lines outside fenced code blocks. */
function proseLines(markdown: string): string[] {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of markdown.split("\n")) {
    const f = /^\s*(```|~~~)/.exec(line);
    if (f) {
      if (fence === null) fence = f[1]!;
      else if (f[1] === fence) fence = null;
      continue;
    }
    if (fence === null) out.push(line);
  }
  return out;
}

const PLACEHOLDER = /[*<>{}…]/;

/** A repo path named in prose, or null when the token is not one (or is a glob / placeholder). */
function repoPathOf(token: string, topLevel: Set<string>): string | null {
  const t = token.trim().replace(/^\.\//, "");
  if (!t.includes("/") || /\s/.test(t) || PLACEHOLDER.test(t)) return null;
  const first = t.split("/")[0]!;
  return topLevel.has(first) ? t.replace(/\/$/, "") : null;
}

interface FileSystem {
  exists(relPath: string): boolean;
  read(relPath: string): string;
}

/** Every broken reference in one Markdown file (`file` is its repo-relative path). */
function brokenReferences(file: string, markdown: string, fs: FileSystem, topLevel: Set<string>): string[] {
  const problems: string[] = [];
  const prose = proseLines(markdown).join("\n");
  const dir = dirname(file);

  for (const m of prose.matchAll(/\[[^\]]*\]\(\s*([^)\s]+)(?:\s+"[^"]*")?\s*\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
    const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined];
    const rel = pathPart === "" ? file : normalize(join(dir, decodeURIComponent(pathPart))).replace(/\/$/, "");
    if (!fs.exists(rel)) {
      problems.push(`${file}: link ${target} — no ${rel}`);
      continue;
    }
    if (anchor !== undefined && rel.endsWith(".md") && !headingSlugs(fs.read(rel)).has(anchor)) {
      problems.push(`${file}: link ${target} — no heading #${anchor} in ${rel}`);
    }
  }

  const tokens: string[] = [];
  for (const m of prose.matchAll(/`([^`\n]+)`/g)) tokens.push(m[1]!);
  // Bracketed citations — `[test/a.test.ts, e2e/b.spec.ts]` — that are not a link's text.
  const citations = prose.replace(/`[^`\n]*`/g, "");
  for (const m of citations.matchAll(/\[([^\]]+)\](?![([])/g)) tokens.push(...m[1]!.split(/[\s,]+/));
  for (const token of tokens) {
    const path = repoPathOf(token, topLevel);
    if (path !== null && !fs.exists(path)) problems.push(`${file}: \`${token}\` — no ${path}`);
  }
  return problems;
}

const repoFs: FileSystem = {
  exists: (rel) => existsSync(join(repoRoot, rel)),
  read: (rel) => readFileSync(join(repoRoot, rel), "utf8"),
};

function docFiles(): string[] {
  const inFolder = (folder: string) =>
    readdirSync(join(repoRoot, folder))
      .filter((name) => name.endsWith(".md"))
      .map((name) => `${folder}/${name}`);
  return ["README.md", "CONTRIBUTING.md", ...inFolder("docs"), ...inFolder("docs/decisions")].filter((f) =>
    repoFs.exists(f),
  );
}

describe("the checks, on a made-up text", () => {
  const files: Record<string, string> = {
    "docs/a.md": "# Title\n\n## The `route()` wrapper (§8.5, v0.6)\n\n## Title\n",
    "lib/x.ts": "",
    "app/v1/messages/[id]/route.ts": "",
  };
  const fakeFs: FileSystem = {
    exists: (rel) => rel in files || Object.keys(files).some((f) => f.startsWith(`${rel}/`)),
    read: (rel) => files[rel]!,
  };
  const top = new Set(["lib", "app", "docs", "test"]);

  it("slugs headings as GitHub does", () => {
    expect([...headingSlugs(files["docs/a.md"]!)]).toEqual(["title", "the-route-wrapper-85-v06", "title-1"]);
  });

  it("reads repo paths and skips placeholders and non-paths", () => {
    expect(repoPathOf("lib/x.ts", top)).toBe("lib/x.ts");
    expect(repoPathOf("./lib/", top)).toBe("lib");
    expect(repoPathOf("app/v1/messages/[id]/route.ts", top)).toBe("app/v1/messages/[id]/route.ts");
    for (const skipped of ["lib/*", "app/<x>/page.tsx", "lib/…", "/v1/messages", "npm run hub", "x/y", "ma2h_key_…"]) {
      expect(repoPathOf(skipped, top)).toBeNull();
    }
  });

  it("finds every broken link, anchor, code-span path and citation — and nothing else", () => {
    const text = [
      "See [a](a.md), [a](a.md#title-1), [wrapper](a.md#the-route-wrapper-85-v06), [here](#here) and",
      "[web](https://example.com/nope). `lib/x.ts`, `app/v1/messages/[id]/route.ts`, `lib/*`, `lib/`.",
      "# Here",
      "Broken: [b](b.md), [a](a.md#nope), [here](#there), `lib/y.ts`, `test/gone/` [lib/x.ts, test/z.test.ts].",
      "```sh",
      "cat lib/fenced.ts `lib/fenced.ts` [f](fenced.md)",
      "```",
    ].join("\n");
    files["docs/c.md"] = text;
    expect(brokenReferences("docs/c.md", text, fakeFs, top)).toEqual([
      "docs/c.md: link b.md — no docs/b.md",
      "docs/c.md: link a.md#nope — no heading #nope in docs/a.md",
      "docs/c.md: link #there — no heading #there in docs/c.md",
      "docs/c.md: `lib/y.ts` — no lib/y.ts",
      "docs/c.md: `test/gone/` — no test/gone",
      "docs/c.md: `test/z.test.ts` — no test/z.test.ts",
    ]);
  });
});

describe("the docs", () => {
  it("reads the repo's top-level folders", () => {
    for (const dir of ["lib", "app", "test", "docs"]) expect(TOP_LEVEL.has(dir)).toBe(true);
  });

  it.each(docFiles())("%s names only files that exist", (file) => {
    expect(brokenReferences(file, repoFs.read(file), repoFs, TOP_LEVEL)).toEqual([]);
  });
});

/**
 * Hand SQL has owners (docs/ARCHITECTURE.md, "Hand SQL"): every raw statement of the Hub is built in a
 * `<verb>.sql.ts` file beside the verb that runs it, where test/sql-statements.test.ts plans it. This
 * reads the source of lib/, app/, server/, workers/, cli/ and components/ and fails on raw SQL
 * anywhere else — `$queryRaw`, `$executeRaw` (and their `Unsafe` forms), `statementRows(`, a pg
 * client's or pool's `.query(`, the `Prisma.sql` / `Prisma.raw` / `Prisma.join` / `Prisma.empty`
 * fragment builders, or the same tag imported from `@prisma/client-runtime-utils`. Exempt: the
 * `*.sql.ts` files, lib/db-pool.ts (it defines `statementRows`), lib/db.ts and lib/sql-statement.ts.
 * Not scanned: tests (`*.test.ts`, test/, e2e/) and scripts/ (benchmarks and tools): they seed and
 * inspect rows directly, and no request runs them. Comments are not code: a comment may name what it
 * explains. The check runs on a made-up source first, so a broken scan cannot pass.
 */
// covers: docs/ARCHITECTURE.md, lib/sql-statement.ts
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./support/hub";

const ROOTS = ["lib", "app", "server", "workers", "cli", "components"];
const SKIP_DIRS = new Set(["generated", "node_modules"]);
/** The modules that hold the machinery rather than statements. */
const EXEMPT = new Set(["lib/db-pool.ts", "lib/db.ts", "lib/sql-statement.ts"]);

const RAW_SQL: { what: string; pattern: RegExp }[] = [
  { what: "$queryRaw", pattern: /\$queryRaw(Unsafe)?\b/ },
  { what: "$executeRaw", pattern: /\$executeRaw(Unsafe)?\b/ },
  { what: "statementRows(", pattern: /\bstatementRows\s*[<(]/ },
  { what: ".query(", pattern: /\.query\s*[<(]/ },
  { what: "Prisma.sql/raw/join/empty", pattern: /\bPrisma\s*\.\s*(sql|raw|join|empty)\b/ },
  { what: "@prisma/client-runtime-utils", pattern: /["']@prisma\/client-runtime-utils["']/ },
];

interface Finding {
  file: string;
  line: number;
  what: string;
}

/** Whether a repository file is one the rule reads (source, not a test) and holds to it (not exempt). */
function ruled(file: string): boolean {
  if (!/\.(ts|tsx|mts|mjs|js)$/.test(file) || /\.d\.ts$/.test(file)) return false;
  if (/\.(test|spec)\.tsx?$/.test(file)) return false;
  return !file.endsWith(".sql.ts") && !EXEMPT.has(file);
}

/**
 * The text with comments blanked (newlines kept, so line numbers hold): block comments, whole-line
 * `//` comments and trailing ` // …` ones. A `//` inside a word (`http://`) is code.
 */
function withoutComments(text: string): string {
  const blanked = text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, " "));
  return blanked
    .split("\n")
    .map((line) => line.replace(/^\s*\/\/.*$/, "").replace(/(^|\s)\/\/\s.*$/, "$1"))
    .join("\n");
}

function findings(file: string, text: string): Finding[] {
  if (!ruled(file)) return [];
  const out: Finding[] = [];
  for (const [i, line] of withoutComments(text).split("\n").entries()) {
    for (const { what, pattern } of RAW_SQL) if (pattern.test(line)) out.push({ file, line: i + 1, what });
  }
  return out;
}

function sourceFiles(dir: string): string[] {
  const abs = join(repoRoot, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs).flatMap((name) => {
    if (SKIP_DIRS.has(name)) return [];
    const rel = `${dir}/${name}`;
    return statSync(join(repoRoot, rel)).isDirectory() ? sourceFiles(rel) : [rel];
  });
}

describe("the rule catches what it looks for (a made-up source)", () => {
  const code = [
    "const a = await db().$queryRaw`SELECT 1`;",
    "const b = await tx.$queryRawUnsafe('SELECT 1');",
    "await tx.$executeRaw`SELECT pg_notify('ma2h_inbox', 'acc_1:msg_1')`;",
    'await tx.$executeRawUnsafe("ALTER TABLE t DISABLE TRIGGER x");',
    "const rows = await statementRows<{ n: number }>(q);",
    "const more = await statementRows(q, tx);",
    "await client.query(`LISTEN ma2h_inbox`);",
    "const { rows } = await pool.query ('SELECT 1');",
    "const where = Prisma.sql`a = 1`;",
    "const names = Prisma.raw(columns);",
    "const list = Prisma.join(parts, ', ');",
    "const none = Prisma.empty;",
    'import { sql } from "@prisma/client-runtime-utils";',
  ];
  const expected = [
    "$queryRaw",
    "$queryRaw",
    "$executeRaw",
    "$executeRaw",
    "statementRows(",
    "statementRows(",
    ".query(",
    ".query(",
    "Prisma.sql/raw/join/empty",
    "Prisma.sql/raw/join/empty",
    "Prisma.sql/raw/join/empty",
    "Prisma.sql/raw/join/empty",
    "@prisma/client-runtime-utils",
  ];
  const innocent = [
    "/** Runs one statement on the pool (lib/db.ts statementRows(q)), like $queryRaw would. */",
    "/*",
    " * Prisma.sql`…` fragments and client.query( calls live in the .sql.ts file.",
    " */",
    "// tx.$executeRaw`…` is the .sql.ts file's business",
    'const url = "http://example.test/a"; // not Prisma.sql either',
    "import { readSeat } from './seats.sql';",
    "const seat = await readSeat(userId, accountId);",
    "const params = new URL(req.url).searchParams; const statementRowsSeen = 1;",
    "import { isStatement, type Statement } from '../sql-statement';",
  ];

  it("flags each form of raw SQL, on its line", () => {
    expect(findings("lib/x/verb.ts", code.join("\n"))).toEqual(
      expected.map((what, i) => ({ file: "lib/x/verb.ts", line: i + 1, what })),
    );
    expect(findings("app/x/page.tsx", code[0]!)).toHaveLength(1);
    expect(findings("server/x.ts", code[6]!)).toHaveLength(1);
  });

  it("reads code, not comments", () => {
    expect(findings("lib/x/verb.ts", innocent.join("\n"))).toEqual([]);
    // a comment does not hide the code before it
    expect(findings("lib/x/verb.ts", "await tx.$executeRaw`SELECT 1`; // the lock")).toHaveLength(1);
  });

  it("leaves the owners, the machinery and the tests alone", () => {
    const all = code.join("\n");
    expect(findings("lib/x/verb.sql.ts", all)).toEqual([]);
    expect(findings("server/migrate.sql.ts", all)).toEqual([]);
    expect(findings("lib/db.ts", all)).toEqual([]);
    expect(findings("lib/sql-statement.ts", all)).toEqual([]);
    expect(findings("lib/x/verb.test.ts", all)).toEqual([]);
    expect(findings("lib/x/db.ts", all).length).toBeGreaterThan(0);
  });
});

describe("raw SQL in this repository", () => {
  const files = ROOTS.flatMap(sourceFiles);

  it("reads the whole tree, owners included", () => {
    expect(files.length).toBeGreaterThan(300);
    expect(files).toContain("lib/health.sql.ts");
    expect(files).toContain("components/Markdown.tsx");
    expect(files.filter(ruled).length).toBeGreaterThan(250);
  });

  it("lives only in *.sql.ts files (and lib/db.ts)", () => {
    const found = files.flatMap((file) => findings(file, readFileSync(join(repoRoot, file), "utf8")));
    expect(found.map((f) => `${f.file}:${f.line} ${f.what}`)).toEqual([]);
  });
});

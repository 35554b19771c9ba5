// tier: process — esbuild (below) runs its service as a child process.
/**
 * One copy of module state. The web process evaluates `lib/` and the wire contract it imports
 * (`@ma2h/protocol`) twice — the protocol lane's esbuild bundle (dist/web.mjs) and Next's own bundles
 * of the app routes — so a module-level variable exists once per copy: a clock pinned through one
 * copy, a cache filled or an in-flight stamp shared through one, is invisible to the other.
 * `processWide()` (lib/process-wide.ts) keeps a value on `globalThis` under a `Symbol.for` name, which
 * exists once per process.
 *
 * The rule, kept by a scan of `lib/**\/*.ts` and `packages/protocol/src/**\/*.ts` (not tests, not
 * lib/generated): no module-level mutable state except through `processWide()`. It fails on
 * - a top-level `let` or `var`;
 * - a top-level `const` that is mutated — a method that changes it (`set`, `add`, `push`, `delete`,
 *   …), an assignment, `++`/`--` or `delete` through it, `Object.assign` onto it — in its own file, or
 *   through an import of it in another `lib/` file;
 * - a top-level `const` holding an instance of a class (it may keep state behind its methods), or an
 *   immediately called function that closes over a `let`/`var` or makes a collection;
 * - a class's `static` field that is not `readonly`.
 * A `const` made by `processWide(…)` is the one copy and may be mutated. True constants are never
 * flagged (a `Set` of names nobody adds to, a frozen table); the few exceptions are listed below, each
 * with why. The checker is run on made-up bad sources first, so a broken scan cannot pass.
 *
 * And one copy, shown: lib/ bundled by esbuild the way the lane's bundle is made, loaded beside the
 * copy this test imports, sees what the other copy set.
 */
// covers: lib/process-wide.ts
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Exceptions, each a `file: name` the rule would flag, with why it is not shared state to route.
 * @ma2h/protocol imports nothing of ours outside itself (it is bundled into the published SDK), so it
 * cannot reach processWide(); its two caches are memos of pure functions: a second copy computes
 * exactly the same values, so two copies can never disagree.
 */
const ALLOWED = new Map<string, string>([
  [
    "packages/protocol/src/signing.ts: keyObjects",
    "memo of a pure conversion (raw key bytes → KeyObject), keyed weakly by the bytes' identity",
  ],
  [
    "packages/protocol/src/flat-schema.ts: sandbox",
    "memo of a stateless regex-test sandbox (vm context); every copy's answers the same",
  ],
]);

// ---------------------------------------------------------------------------------------------------
// The checker

interface Finding {
  file: string;
  name: string;
  line: number;
  why: string;
}

/** Methods that change the object they are called on (Map, Set, WeakMap, WeakSet, Array). */
const MUTATORS = new Set([
  "set",
  "add",
  "delete",
  "clear",
  "push",
  "pop",
  "shift",
  "unshift",
  "splice",
  "sort",
  "reverse",
  "fill",
  "copyWithin",
]);
/** Classes whose instances hold no state a caller can change (or only through the mutators above). */
const STATELESS_CLASSES = new Set([
  "RegExp",
  "TextEncoder",
  "TextDecoder",
  "URL",
  "Map",
  "Set",
  "WeakMap",
  "WeakSet",
  "Array",
  "Date",
]);
const OBJECT_WRITERS = new Set([
  "Object.assign",
  "Object.defineProperty",
  "Object.defineProperties",
  "Object.setPrototypeOf",
]);
const ONE_COPY = new Set(["processWide", "processWideIfMade"]);

const ASSIGNMENT_OPERATORS = new Set([
  ts.SyntaxKind.EqualsToken,
  ts.SyntaxKind.PlusEqualsToken,
  ts.SyntaxKind.MinusEqualsToken,
  ts.SyntaxKind.AsteriskEqualsToken,
  ts.SyntaxKind.SlashEqualsToken,
  ts.SyntaxKind.PercentEqualsToken,
  ts.SyntaxKind.AsteriskAsteriskEqualsToken,
  ts.SyntaxKind.LessThanLessThanEqualsToken,
  ts.SyntaxKind.GreaterThanGreaterThanEqualsToken,
  ts.SyntaxKind.GreaterThanGreaterThanGreaterThanEqualsToken,
  ts.SyntaxKind.AmpersandEqualsToken,
  ts.SyntaxKind.BarEqualsToken,
  ts.SyntaxKind.CaretEqualsToken,
  ts.SyntaxKind.AmpersandAmpersandEqualsToken,
  ts.SyntaxKind.BarBarEqualsToken,
  ts.SyntaxKind.QuestionQuestionEqualsToken,
]);

function unwrap(e: ts.Expression): ts.Expression {
  let x = e;
  while (
    ts.isParenthesizedExpression(x) ||
    ts.isAsExpression(x) ||
    ts.isSatisfiesExpression(x) ||
    ts.isNonNullExpression(x) ||
    ts.isTypeAssertionExpression(x)
  )
    x = x.expression;
  return x;
}

function calleeName(call: ts.CallExpression | ts.NewExpression): string {
  const e = unwrap(call.expression);
  return ts.isIdentifier(e) || ts.isPropertyAccessExpression(e) ? e.getText() : "";
}

/** The names `source`'s code mutates through, as identifiers (a local binding or an imported one). */
function mutatedNames(source: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) {
      let chain: ts.Node = node;
      while (
        (ts.isPropertyAccessExpression(chain.parent) || ts.isElementAccessExpression(chain.parent)) &&
        chain.parent.expression === chain
      )
        chain = chain.parent;
      const accessed = chain !== node;
      const parent = chain.parent;
      const written =
        (accessed &&
          ts.isBinaryExpression(parent) &&
          parent.left === chain &&
          ASSIGNMENT_OPERATORS.has(parent.operatorToken.kind)) ||
        (accessed &&
          (ts.isPrefixUnaryExpression(parent) || ts.isPostfixUnaryExpression(parent)) &&
          (parent.operator === ts.SyntaxKind.PlusPlusToken || parent.operator === ts.SyntaxKind.MinusMinusToken)) ||
        (accessed && ts.isDeleteExpression(parent)) ||
        (ts.isPropertyAccessExpression(chain) &&
          MUTATORS.has(chain.name.text) &&
          ts.isCallExpression(parent) &&
          parent.expression === chain) ||
        (!accessed &&
          ts.isCallExpression(parent) &&
          parent.arguments[0] === node &&
          OBJECT_WRITERS.has(calleeName(parent)));
      // A property name (`a.set` in `a.set(…)`) is not a use of a binding called `set`.
      const isPropertyName = ts.isPropertyAccessExpression(node.parent) && node.parent.name === node;
      if (written && !isPropertyName) names.add(node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}

/** Whether an immediately called function's body keeps state: a `let`/`var` or a collection it makes. */
function closesOverState(fn: ts.Node): boolean {
  let found = false;
  const visit = (node: ts.Node): void => {
    if (found) return;
    if (ts.isVariableDeclarationList(node) && !(node.flags & ts.NodeFlags.Const)) found = true;
    if (ts.isNewExpression(node) && ["Map", "Set", "WeakMap", "WeakSet"].includes(calleeName(node))) found = true;
    // A function made inside runs later, per call: its own locals are not module state.
    if (node !== fn && ts.isFunctionLike(node)) return;
    ts.forEachChild(node, visit);
  };
  visit(fn);
  return found;
}

interface Parsed {
  file: string;
  source: ts.SourceFile;
}

const PROTOCOL = "@ma2h/protocol/";

/** `./x` (or `@/x`, `@ma2h/protocol/x`) from `from` as a file among `files`, or null. */
function resolveImport(from: string, spec: string, files: Set<string>): string | null {
  let base: string;
  if (spec.startsWith("@/")) base = spec.slice(2);
  else if (spec.startsWith(PROTOCOL)) base = `packages/protocol/src/${spec.slice(PROTOCOL.length)}`;
  else if (spec.startsWith(".")) base = relative(root, resolve(root, dirname(from), spec));
  else return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`])
    if (files.has(candidate)) return candidate;
  return null;
}

/** Module-level mutable state outside processWide() in `sources` (path → text), minus `allowed`. */
function findModuleState(sources: Map<string, string>, allowed: ReadonlyMap<string, string> = ALLOWED): Finding[] {
  const parsed: Parsed[] = [...sources].map(([file, text]) => ({
    file,
    source: ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS),
  }));
  const files = new Set(sources.keys());
  // What each file's code mutates, by its own name and by the (file, export) it imported it as.
  const mutatedHere = new Map<string, Set<string>>();
  const mutatedElsewhere = new Set<string>(); // `file: exportName`
  for (const { file, source } of parsed) {
    const names = mutatedNames(source);
    mutatedHere.set(file, names);
    for (const stmt of source.statements) {
      if (!ts.isImportDeclaration(stmt) || !ts.isStringLiteral(stmt.moduleSpecifier)) continue;
      const target = resolveImport(file, stmt.moduleSpecifier.text, files);
      const bindings = stmt.importClause?.namedBindings;
      if (!target || !bindings || !ts.isNamedImports(bindings)) continue;
      for (const el of bindings.elements)
        if (names.has(el.name.text)) mutatedElsewhere.add(`${target}: ${(el.propertyName ?? el.name).text}`);
    }
  }

  const findings: Finding[] = [];
  for (const { file, source } of parsed) {
    const flag = (name: string, node: ts.Node, why: string) => {
      if (allowed.has(`${file}: ${name}`)) return;
      findings.push({ file, name, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, why });
    };
    const mutated = mutatedHere.get(file) ?? new Set<string>();
    for (const stmt of source.statements) {
      if (ts.isClassDeclaration(stmt)) {
        for (const member of stmt.members) {
          const mods = ts.canHaveModifiers(member) ? (ts.getModifiers(member) ?? []) : [];
          const isStatic = mods.some((m) => m.kind === ts.SyntaxKind.StaticKeyword);
          const isReadonly = mods.some((m) => m.kind === ts.SyntaxKind.ReadonlyKeyword);
          if (ts.isPropertyDeclaration(member) && isStatic && !isReadonly)
            flag(
              `${stmt.name?.text ?? "class"}.${member.name.getText()}`,
              member,
              "a static field that is not readonly",
            );
        }
        continue;
      }
      if (!ts.isVariableStatement(stmt)) continue;
      const isConst = (stmt.declarationList.flags & ts.NodeFlags.Const) !== 0;
      for (const decl of stmt.declarationList.declarations) {
        const names = ts.isIdentifier(decl.name)
          ? [decl.name.text]
          : decl.name.elements.flatMap((el) =>
              ts.isBindingElement(el) && ts.isIdentifier(el.name) ? [el.name.text] : [],
            );
        const label = names.join(", ");
        if (!isConst) {
          flag(label, decl, "a top-level let/var");
          continue;
        }
        const init = decl.initializer ? unwrap(decl.initializer) : undefined;
        if (init && ts.isCallExpression(init) && ONE_COPY.has(calleeName(init))) continue;
        if (names.some((n) => mutated.has(n) || mutatedElsewhere.has(`${file}: ${n}`))) {
          flag(label, decl, "a top-level const that is mutated");
          continue;
        }
        if (init && ts.isNewExpression(init) && !STATELESS_CLASSES.has(calleeName(init))) {
          flag(label, decl, `a top-level instance of ${calleeName(init) || "a class"}, which may keep state`);
          continue;
        }
        if (init && ts.isCallExpression(init)) {
          const fn = unwrap(init.expression);
          if ((ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) && closesOverState(fn))
            flag(label, decl, "an immediately called function that keeps state in its closure");
        }
      }
    }
  }
  return findings;
}

// ---------------------------------------------------------------------------------------------------
// The scan

/** The sources both copies evaluate: lib/ and the wire contract it imports. */
const SCANNED = ["lib", "packages/protocol/src"];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const rel = `${dir}/${name}`;
    if (rel === "lib/generated") return [];
    if (statSync(join(root, rel)).isDirectory()) return sourceFiles(rel);
    return /\.tsx?$/.test(name) && !/\.d\.ts$/.test(name) && !/\.test\.tsx?$/.test(name) ? [rel] : [];
  });
}

const show = (f: Finding) => `${f.file}:${f.line} ${f.name} — ${f.why}`;

describe("module-level state in lib/ lives only in processWide()", () => {
  it("the checker finds each kind of module state in made-up sources, and passes the constants", () => {
    const bad = new Map([
      ["lib/a.ts", "let counter = 0;\nexport function bump() { counter++; }\nvar legacy = 1;\n"],
      ["lib/b.ts", "const seen = new Map<string, number>();\nexport function see(k: string) { seen.set(k, 1); }\n"],
      [
        "lib/c.ts",
        "export const queue: string[] = [];\nconst state = { on: false };\nexport function on() { state.on = true; }\n",
      ],
      ["lib/d.ts", 'import { queue } from "./c";\nexport function add() { queue.push("x"); }\n'],
      ["lib/e.ts", "export const next = (() => { let n = 0; return () => ++n; })();\n"],
      [
        "lib/f.ts",
        "class Pool { static count = 0; }\nexport const pool = new Pool();\nconst opts = {};\nObject.assign(opts, { a: 1 });\n",
      ],
      [
        "lib/g.ts",
        "const byId = { a: 1 } as Record<string, number>;\nexport function forget(id: string) { delete byId[id]; }\n",
      ],
    ]);
    const found = findModuleState(bad, new Map()).map((f) => `${f.file}: ${f.name}`);
    expect(found.sort()).toEqual(
      [
        "lib/a.ts: counter",
        "lib/a.ts: legacy",
        "lib/b.ts: seen",
        "lib/c.ts: queue", // mutated by lib/d.ts
        "lib/c.ts: state",
        "lib/e.ts: next",
        "lib/f.ts: Pool.count",
        "lib/f.ts: pool",
        "lib/f.ts: opts",
        "lib/g.ts: byId",
      ].sort(),
    );

    const good = new Map([
      [
        "lib/ok.ts",
        [
          'import { processWide } from "./process-wide";',
          'const NAMES = new Set(["a", "b"]);',
          "const LIMITS = Object.freeze({ max: 3 });",
          "const PATTERN = new RegExp('^a$');",
          "const TABLE = [1, 2, 3] as const;",
          'const slot = processWide("x", () => ({ n: 0, seen: new Map<string, number>() }));',
          "export function see(k: string) { slot.n++; slot.seen.set(k, 1); const local = new Map(); local.set(k, 1); }",
          "export function has(k: string) { return NAMES.has(k) && TABLE.includes(1) && LIMITS.max > 0 && PATTERN.test(k); }",
          "class Counter { static readonly START = 0; private n = 0; bump() { this.n++; } }",
          "export const make = () => new Counter();",
        ].join("\n"),
      ],
    ]);
    expect(findModuleState(good, new Map()).map(show)).toEqual([]);
  });

  it("the allow-list silences exactly its entries", () => {
    const sources = new Map([["lib/x.ts", "let a = 0;\nlet b = 0;\n"]]);
    expect(findModuleState(sources, new Map([["lib/x.ts: a", "why"]])).map((f) => f.name)).toEqual(["b"]);
  });

  it("lib/ and @ma2h/protocol have none outside processWide() and the allow-list, and every allow-list entry is still needed", () => {
    const files = SCANNED.flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(100);
    expect(files).toContain("lib/clock.ts");
    expect(files).toContain("packages/protocol/src/signing.ts");
    const sources = new Map(files.map((f) => [f, readFileSync(join(root, f), "utf8")]));
    expect(findModuleState(sources).map(show)).toEqual([]);
    // Without the allow-list, exactly its entries are found: none is stale.
    const unlisted = findModuleState(sources, new Map()).map((f) => `${f.file}: ${f.name}`);
    expect(unlisted.sort()).toEqual([...ALLOWED.keys()].sort());
  });
});

// ---------------------------------------------------------------------------------------------------
// One copy, shown with two

interface SecondCopy {
  clock: typeof import("../lib/clock").clock;
  setClock: typeof import("../lib/clock").setClock;
  fixedClock: typeof import("../lib/clock").fixedClock;
  env: typeof import("../lib/env").env;
  resetEnvCache: typeof import("../lib/env").resetEnvCache;
  currentSealKey: typeof import("../lib/secrets").currentSealKey;
}

describe("a second copy of lib/ in the process shares the first one's state", () => {
  let dir: string;
  let second: SecondCopy;

  beforeAll(async () => {
    // Bundled the way scripts/build-node.mjs bundles the lane (esbuild, ESM, packages external), into
    // a file of its own: a module graph apart from the one vitest loaded, as Next's is from the lane's.
    dir = mkdtempSync(join(root, ".module-state-"));
    const out = join(dir, "second-copy.mjs");
    await build({
      absWorkingDir: root,
      stdin: {
        contents: [
          'export { clock, setClock, fixedClock } from "./lib/clock";',
          'export { env, resetEnvCache } from "./lib/env";',
          'export { currentSealKey } from "./lib/secrets";',
        ].join("\n"),
        resolveDir: root,
        loader: "ts",
      },
      outfile: out,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      packages: "external",
      tsconfig: join(root, "tsconfig.json"),
      logLevel: "warning",
    });
    second = (await import(pathToFileURL(out).href)) as SecondCopy;
  });

  afterAll(async () => {
    const { setClock } = await import("../lib/clock");
    setClock(null);
    rmSync(dir, { recursive: true, force: true });
  });

  it("is a second copy: its functions are not this copy's", async () => {
    const first = await import("../lib/clock");
    expect(second.setClock).not.toBe(first.setClock);
    expect(second.clock).not.toBe(first.clock);
  });

  it("a clock pinned through one copy is the time in the other, both ways, and released in both", async () => {
    const first = await import("../lib/clock");
    const at = new Date("2031-05-06T07:08:09.000Z");
    first.setClock(first.fixedClock(at));
    expect(second.clock.now().toISOString()).toBe(at.toISOString());
    const later = new Date("2032-01-02T03:04:05.000Z");
    second.setClock(second.fixedClock(later));
    expect(first.clock.now().toISOString()).toBe(later.toISOString());
    first.setClock(null);
    expect(Math.abs(second.clock.now().getTime() - Date.now())).toBeLessThan(60_000);
  });

  it("the configuration read through one copy is the other's, and a reset through either re-reads it for both", async () => {
    const first = await import("../lib/env");
    const saved = process.env.MA2H_INBOX_DEPTH;
    try {
      process.env.DATABASE_URL ||= "postgresql://unused@127.0.0.1:5432/unused";
      process.env.MA2H_INBOX_DEPTH = "321";
      first.resetEnvCache();
      expect(first.env().MA2H_INBOX_DEPTH).toBe(321);
      expect(second.env()).toBe(first.env());
      process.env.MA2H_INBOX_DEPTH = "654";
      second.resetEnvCache();
      expect(first.env().MA2H_INBOX_DEPTH).toBe(654);
    } finally {
      if (saved === undefined) delete process.env.MA2H_INBOX_DEPTH;
      else process.env.MA2H_INBOX_DEPTH = saved;
      first.resetEnvCache();
    }
  });

  it("the derived sealing key is derived once for the process", async () => {
    const { currentSealKey } = await import("../lib/secrets");
    const { resetEnvCache } = await import("../lib/env");
    const saved = process.env.MA2H_SECRETS_KEY;
    try {
      process.env.DATABASE_URL ||= "postgresql://unused@127.0.0.1:5432/unused";
      process.env.MA2H_SECRETS_KEY = "k".repeat(40);
      resetEnvCache();
      expect(second.currentSealKey()).toBe(currentSealKey());
    } finally {
      if (saved === undefined) delete process.env.MA2H_SECRETS_KEY;
      else process.env.MA2H_SECRETS_KEY = saved;
      resetEnvCache();
    }
  });
});

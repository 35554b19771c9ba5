/**
 * Every test says which modules it is the test of (test/support/covers.ts; CONTRIBUTING.md, "Finding
 * a module's test"): a file under test/ (but test/support/) has one `// covers:` line of paths that
 * exist, and a colocated test in lib/ has a sibling source of its name or such a line. Pure file
 * reads. The checks and the finder run on a made-up tree first, so a scan that finds nothing cannot
 * pass.
 */
// covers: test/support/covers.ts, scripts/test-find.ts
import { describe, expect, it } from "vitest";
import { coverageProblems, coversLines, MAX_COVERED, repoTree, type TestTree, testsCovering } from "./support/covers";
import { repoRoot } from "./support/hub";

/** A made-up repository: its files and their text; a folder is every prefix of a path ending in `/`. */
function madeUpTree(files: Record<string, string>): TestTree {
  return {
    testFiles: Object.keys(files)
      .filter((path) => /\.test\.tsx?$/.test(path))
      .sort(),
    read: (path) => {
      const text = files[path];
      if (text === undefined) throw new Error(`no made-up file ${path}`);
      return text;
    },
    kind: (path) => {
      const bare = path.replace(/\/$/, "");
      if (files[bare] !== undefined) return "file";
      return Object.keys(files).some((file) => file.startsWith(`${bare}/`)) ? "folder" : null;
    },
  };
}

const HEADER = "/** What this file proves. */\n";
const MADE_UP = madeUpTree({
  "lib/area/y.ts": "",
  "lib/area/z.ts": "",
  "lib/x.ts": "",
  "lib/view.tsx": "",
  // colocated, with a sibling: fine without a line
  "lib/area/y.test.ts": HEADER,
  "lib/view.test.ts": HEADER,
  // colocated, no sibling: needs a line
  "lib/area/lonely.test.ts": HEADER,
  "lib/area/named.test.ts": `${HEADER}// covers: lib/x.ts\n`,
  // under test/: always a line
  "test/bare.test.ts": `${HEADER}import { x } from "../lib/x";\n`,
  "test/good.test.ts": `${HEADER}// covers: lib/x.ts, lib/area/\n`,
  "packages/agent/test/good.test.ts": `// tier: process\n${HEADER}// covers: lib/area/z.ts\n`,
  "test/missing.test.ts": `${HEADER}// covers: lib/x.ts, lib/gone.ts\n`,
  "test/shapes.test.ts": `${HEADER}// covers: lib/area, lib/x.ts/, ./lib/x.ts, lib/area/../x.ts, \n`,
  "test/twice.test.ts": `${HEADER}// covers: lib/x.ts\n// covers: lib/area/y.ts\n`,
  "test/many.test.ts": `${HEADER}// covers: ${Array.from({ length: MAX_COVERED + 1 }, () => "lib/x.ts").join(", ")}\n`,
  // a comment that merely mentions the word is not the line
  "test/prose.test.ts": `/**\n * The // covers: line is elsewhere.\n */\n`,
  // the kit is not a test of its own
  "test/support/kit.test.ts": HEADER,
});

describe("the checks, on a made-up tree", () => {
  it("reads the entries of each covers line", () => {
    expect(coversLines(`${HEADER}// covers: lib/a.ts,  lib/b/ ,lib/c.tsx\nimport "x";\n`)).toEqual([
      ["lib/a.ts", "lib/b/", "lib/c.tsx"],
    ]);
    expect(coversLines(`${HEADER}import "x";\n`)).toEqual([]);
  });

  it("finds every file without a line, every path that is not there, and nothing else", () => {
    expect(coverageProblems(MADE_UP)).toEqual([
      'lib/area/lonely.test.ts: no sibling source of its name and no "// covers:" line',
      'test/bare.test.ts: no "// covers:" line',
      `test/many.test.ts: ${MAX_COVERED + 1} covered paths, ${MAX_COVERED} at most (the main ones)`,
      'test/missing.test.ts: "lib/gone.ts" does not exist',
      'test/prose.test.ts: no "// covers:" line',
      'test/shapes.test.ts: "lib/area" is a folder: write it "lib/area/"',
      'test/shapes.test.ts: "lib/x.ts/" is not a folder',
      'test/shapes.test.ts: "./lib/x.ts" is not a plain repo-relative path',
      'test/shapes.test.ts: "lib/area/../x.ts" is not a plain repo-relative path',
      "test/shapes.test.ts: an empty entry",
      "test/twice.test.ts: 2 covers lines, one at most",
    ]);
  });

  it("finds a file's tests: the colocated one, then the covers lines naming it or its folder", () => {
    expect(testsCovering(MADE_UP, "lib/area/y.ts")).toEqual([
      "lib/area/y.test.ts",
      "test/twice.test.ts",
      "test/good.test.ts",
    ]);
    expect(testsCovering(MADE_UP, "lib/area/z.ts")).toEqual(["packages/agent/test/good.test.ts", "test/good.test.ts"]);
    expect(testsCovering(MADE_UP, "lib/view.tsx")).toEqual(["lib/view.test.ts"]);
    expect(testsCovering(MADE_UP, "lib/x.ts")).toEqual([
      "lib/area/named.test.ts",
      "test/good.test.ts",
      "test/many.test.ts",
      "test/missing.test.ts",
      "test/twice.test.ts",
    ]);
    expect(testsCovering(MADE_UP, "lib/nobody.ts")).toEqual([]);
  });
});

describe("this repository's tests", () => {
  const tree = repoTree(repoRoot);

  it("are the files vitest runs, in lib/ and test/", () => {
    expect(tree.testFiles).toContain("test/submit.test.ts");
    expect(tree.testFiles).toContain("packages/agent/test/client.test.ts");
    expect(tree.testFiles).toContain("lib/messages/waiters.test.ts");
    expect(tree.testFiles.length).toBeGreaterThan(100);
  });

  it("each name what they cover, with paths that exist", () => {
    expect(coverageProblems(tree)).toEqual([]);
  });

  it("are found from the module: submit's HTTP test, a colocated test, a folder's test", () => {
    expect(testsCovering(tree, "lib/messages/submit.ts")).toContain("test/submit.test.ts");
    expect(testsCovering(tree, "lib/messages/waiters.ts")[0]).toBe("lib/messages/waiters.test.ts");
    expect(testsCovering(tree, "lib/audit/seal.ts")).toContain("test/audit-chain.test.ts");
  });
});

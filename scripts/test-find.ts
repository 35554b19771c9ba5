/**
 * `npm run test:find -- <file> [<file> …]`: the test files that cover a source file, one a line — its
 * colocated test, then every test whose `// covers:` line names it or a folder above it
 * (test/support/covers.ts). So `npx vitest run $(npm run -s test:find -- lib/messages/submit.ts)`
 * runs them. Exits 1 when a file has none, 2 on a path that is not a file of the repository.
 */
import { dirname, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { repoTree, testsCovering } from "../test/support/covers";

const args = process.argv.slice(2);
if (args.length === 0) {
  console.error("usage: npm run test:find -- <source file> [<source file> …]");
  process.exit(2);
}

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const tree = repoTree(repoRoot);
// npm runs scripts from the repository root; INIT_CWD is where the command was typed.
const cwd = process.env.INIT_CWD ?? process.cwd();
let status = 0;
const found = new Set<string>();
for (const arg of args) {
  const source = relative(repoRoot, resolve(cwd, arg)).split(sep).join("/");
  if (source.startsWith("../") || tree.kind(source) !== "file") {
    console.error(`${arg}: not a file of the repository`);
    process.exit(2);
  }
  const tests = testsCovering(tree, source);
  if (tests.length === 0) {
    console.error(`${source}: no test covers it (no colocated test, no "// covers:" line names it)`);
    status = 1;
  }
  for (const test of tests) found.add(test);
}
for (const test of found) console.log(test);
process.exit(status);

// The Hub's Node entry points and the one rule for running them: the ahead-of-time bundle
// dist/<name>.mjs that `npm run build` makes (scripts/build-node.mjs) while it is fresh — it exists
// and no source listed in dist/<name>.inputs.json is newer than it — and otherwise the TypeScript
// source through tsx (development: an edit since the build, or no build at all, is never masked by a
// stale bundle). Used by bin/run.mjs (`npm run hub|web|worker|db:migrate`), bin/ma2h-hub.js (the
// admin CLI), server/hub.ts (its web and worker children), server/embedded-db.ts (initdb) and the
// test helpers. Plain JavaScript: it must run before anything can compile TypeScript. It is bundled
// into the entries that import it, so it finds the repository root by walking up to the
// package.json (from bin/ or dist/ alike), never by a fixed "..".
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** Entry name → its TypeScript source (relative to the root). The bundle is dist/<name>.mjs. */
export const ENTRIES = {
  hub: "server/hub.ts",
  web: "server/web.ts",
  worker: "workers/main.ts",
  migrate: "server/migrate-cli.ts",
  "embedded-init": "server/embedded-init.ts",
  "ma2h-hub": "cli/ma2h-hub.ts",
};

/** The nearest directory at or above `from` holding a package.json. */
export function findRoot(from) {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
    if (dir === dirname(dir)) throw new Error(`no package.json above ${from}`);
  }
}

/** The repository root, wherever this module runs from (bin/launcher.mjs, or bundled into dist/). */
export const root = findRoot(dirname(fileURLToPath(import.meta.url)));

function entry(name) {
  const source = ENTRIES[name];
  if (!source) throw new Error(`unknown entry point: ${name} (one of ${Object.keys(ENTRIES).join(", ")})`);
  return {
    source: join(root, source),
    bundle: join(root, "dist", `${name}.mjs`),
    inputs: join(root, "dist", `${name}.inputs.json`),
  };
}

/** The bundle of entry `name` if it exists and every source it was built from is older than it. */
export function freshBundle(name) {
  const { bundle, inputs: inputsFile } = entry(name);
  try {
    const built = statSync(bundle).mtimeMs;
    const { inputs } = JSON.parse(readFileSync(inputsFile, "utf8"));
    if (!Array.isArray(inputs) || inputs.length === 0) return undefined;
    for (const input of inputs) if (statSync(join(root, input)).mtimeMs > built) return undefined;
    return bundle;
  } catch {
    return undefined; // no build, or a source gone since: run the sources
  }
}

/** The file that runs for entry `name`: its fresh bundle, or its TypeScript source. */
export function entryFile(name) {
  return freshBundle(name) ?? entry(name).source;
}

/** Arguments for `process.execPath` that start entry `name` in a new process (then its own args). */
export function nodeArgs(name) {
  const bundle = freshBundle(name);
  return bundle ? [bundle] : ["--import", "tsx", entry(name).source];
}

/**
 * Runs entry `name` in this process as if node had been started on it: process.argv becomes
 * [node, <the file that runs>, ...args]. The source path registers tsx first, as `--import tsx`
 * does, with this repository's tsconfig whatever the working directory.
 */
export async function runEntry(name, args) {
  const bundle = freshBundle(name);
  const file = bundle ?? entry(name).source;
  process.argv.splice(1, process.argv.length - 1, file, ...args);
  if (!bundle) {
    process.env.TSX_TSCONFIG_PATH ||= join(root, "tsconfig.json");
    await import("tsx");
  }
  await import(pathToFileURL(file).href);
}

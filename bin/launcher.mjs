// The Hub's Node entry points and the one rule for running them: the ahead-of-time bundle
// dist/<name>.mjs that `npm run build` makes (scripts/build-node.mjs) while it is fresh — it exists
// and every source listed in dist/<name>.inputs.json still has the content (SHA-256) it had when the
// bundle was made — and otherwise the TypeScript source through tsx (development: an edit since the
// build, or no build at all, is never masked by a stale bundle). Content, not file times: a step
// that rewrites a source unchanged (`prisma generate` on every `npm install`, a checkout) leaves the
// bundle in use. Used by bin/run.mjs (`npm run hub|web|worker|db:migrate`), bin/ma2h-hub.js (the
// admin CLI), server/hub.ts (its web and worker children), server/embedded-db.ts (initdb) and the
// test helpers. Plain JavaScript: it must run before anything can compile TypeScript. It is bundled
// into the entries that import it, so it finds the repository root by walking up to the
// package.json (from bin/ or dist/ alike), never by a fixed "..".
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, sep } from "node:path";
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
const here = fileURLToPath(import.meta.url);
export const root = findRoot(dirname(here));

function entry(name) {
  const source = ENTRIES[name];
  if (!source) throw new Error(`unknown entry point: ${name} (one of ${Object.keys(ENTRIES).join(", ")})`);
  return {
    source: join(root, source),
    bundle: join(root, "dist", `${name}.mjs`),
    inputs: join(root, "dist", `${name}.inputs.json`),
  };
}

/** The SHA-256 of a source's content, as scripts/build-node.mjs records it for each input. */
export function contentHash(file) {
  return createHash("sha256").update(readFileSync(file)).digest("hex");
}

/**
 * Whether entry `name` runs its bundle: `{ bundle }` when it exists and every input still has its
 * recorded content, else `{ reason }` — why the TypeScript runs instead (no build, or which sources
 * changed since it).
 */
export function bundleState(name) {
  const { bundle, inputs: inputsFile } = entry(name);
  let recorded;
  try {
    if (!existsSync(bundle)) return { reason: `no build (${join("dist", `${name}.mjs`)} is missing)` };
    recorded = JSON.parse(readFileSync(inputsFile, "utf8")).inputs;
  } catch {
    return { reason: `no list of the build's inputs (dist/${name}.inputs.json)` };
  }
  if (recorded === null || typeof recorded !== "object" || Array.isArray(recorded) || !Object.keys(recorded).length)
    return { reason: `no content hashes in dist/${name}.inputs.json (built by an older build)` };
  const changed = [];
  for (const [input, hash] of Object.entries(recorded)) {
    let now;
    try {
      now = contentHash(join(root, input));
    } catch {
      now = null; // a source gone since the build
    }
    if (now !== hash) changed.push(input);
  }
  if (changed.length === 0) return { bundle };
  const shown = changed.slice(0, 3).join(", ") + (changed.length > 3 ? ` and ${changed.length - 3} more` : "");
  return { reason: `changed since the build: ${shown}` };
}

/** The bundle of entry `name` if it is fresh (bundleState), else undefined. */
export function freshBundle(name) {
  return bundleState(name).bundle;
}

/**
 * What this process runs, for its start log: "bundle" when this module was loaded from dist/ (it is
 * bundled into every entry), else "source" with the reason `name`'s bundle was passed over.
 */
export function runningCode(name) {
  if (here.startsWith(join(root, "dist") + sep)) return { code: "bundle" };
  return { code: "source", reason: bundleState(name).reason ?? "started on the sources directly" };
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

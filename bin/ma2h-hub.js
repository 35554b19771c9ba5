#!/usr/bin/env node
// Launcher for the `ma2h-hub` admin CLI (package.json "bin"). Runs the ahead-of-time bundle
// dist/ma2h-hub.mjs that `npm run build` makes (scripts/build-cli.mjs) when it is there and no newer
// than its sources; otherwise (development, an edit since the build) loads cli/ma2h-hub.ts in this
// same process through this repository's tsx (resolved next to this file, so any working directory
// works). Either way the same code runs and the CLI sets the exit status itself.
import { readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bundle = join(root, "dist", "ma2h-hub.mjs");

/** The bundle, if it exists and every source it was built from is older than it. */
function freshBundle() {
  try {
    const built = statSync(bundle).mtimeMs;
    const { inputs } = JSON.parse(readFileSync(join(root, "dist", "ma2h-hub.inputs.json"), "utf8"));
    if (!Array.isArray(inputs) || inputs.length === 0) return undefined;
    for (const input of inputs) if (statSync(join(root, input)).mtimeMs > built) return undefined;
    return bundle;
  } catch {
    return undefined; // no build, or a source gone since: run the sources
  }
}

const compiled = freshBundle();
if (compiled) {
  await import(pathToFileURL(compiled).href);
} else {
  const { tsImport } = await import("tsx/esm/api");
  await tsImport(pathToFileURL(join(root, "cli", "ma2h-hub.ts")).href, {
    parentURL: import.meta.url,
    tsconfig: join(root, "tsconfig.json"),
  });
}

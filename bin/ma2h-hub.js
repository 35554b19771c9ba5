#!/usr/bin/env node
// Launcher for the `ma2h-hub` admin CLI (package.json "bin"). Loads cli/ma2h-hub.ts in this same
// process through this repository's tsx (resolved next to this file, so any working directory
// works); the CLI sets the exit status itself.
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { tsImport } from "tsx/esm/api";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

await tsImport(pathToFileURL(join(root, "cli", "ma2h-hub.ts")).href, {
  parentURL: import.meta.url,
  tsconfig: join(root, "tsconfig.json"),
});

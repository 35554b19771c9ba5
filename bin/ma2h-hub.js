#!/usr/bin/env node
// Launcher for the `ma2h-hub` admin CLI (package.json "bin"). Runs the ahead-of-time bundle
// dist/ma2h-hub.mjs that `npm run build` makes (scripts/build-node.mjs) when it is there and no newer
// than its sources; otherwise (development, an edit since the build) loads cli/ma2h-hub.ts in this
// same process through this repository's tsx (bin/launcher.mjs: the rule every entry point shares;
// any working directory works). Either way the same code runs and the CLI sets the exit status.
import { runEntry } from "./launcher.mjs";

await runEntry("ma2h-hub", process.argv.slice(2));

// Compiles the `ma2h-hub` admin CLI ahead of time (part of `npm run build`): cli/ma2h-hub.ts and the
// lib/ code it uses bundled by esbuild into dist/ma2h-hub.mjs as ESM, node_modules left external
// (so Prisma's generated client loads its wasm query compiler from @prisma/client as under tsx).
// bin/ma2h-hub.js runs this bundle instead of transpiling the TypeScript with tsx on every start —
// unless one of the sources listed in dist/ma2h-hub.inputs.json is newer than the bundle (then it
// falls back to tsx, so an edit in development is never masked by a stale bundle).
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const outfile = join(dist, "ma2h-hub.mjs");
const inputsFile = join(dist, "ma2h-hub.inputs.json");
rmSync(outfile, { force: true });
rmSync(inputsFile, { force: true });
mkdirSync(dist, { recursive: true });

const { metafile } = await build({
  absWorkingDir: root,
  entryPoints: [join(root, "cli/ma2h-hub.ts")],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  tsconfig: join(root, "tsconfig.json"),
  sourcemap: false,
  metafile: true,
  logLevel: "warning",
});

// The repository files the bundle was made from (relative to the root), for bin/ma2h-hub.js's
// staleness check; node_modules are external and not part of it.
const inputs = Object.keys(metafile.inputs)
  .filter((p) => !p.includes("node_modules/"))
  .sort();
writeFileSync(inputsFile, `${JSON.stringify({ inputs })}\n`);

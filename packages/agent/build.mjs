// Builds the publishable package: the sources and the Hub's pure wire contract (the private workspace
// package @ma2h/protocol, TypeScript source) bundled into dist/ as ESM, the package's own runtime
// dependencies left external, and one bundled type declaration file with @ma2h/protocol's types inlined.
// Nothing in dist/ names @ma2h/protocol: it is never published, so an installed @ma2h/agent could not
// resolve it.
import { execFileSync } from "node:child_process";
import { chmodSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, "dist");
rmSync(dist, { recursive: true, force: true });

// `ma2h --version` reads the version baked in here, so the packed package needs no package.json lookup.
const { version, dependencies, peerDependencies } = JSON.parse(readFileSync(join(here, "package.json"), "utf8"));

const common = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // Only the declared dependencies and peer dependencies (and their subpaths) stay imports; node:
  // built-ins are external on platform node. Everything else, @ma2h/protocol above all, is bundled in.
  external: [...Object.keys(dependencies), ...Object.keys(peerDependencies ?? {})],
  sourcemap: false,
  logLevel: "warning",
};
await build({ ...common, entryPoints: [join(here, "src/index.ts")], outfile: join(dist, "index.js") });
// `ma2h mcp`'s server is a chunk of its own (code splitting at its dynamic import), loaded only when
// that command runs: the MCP SDK is an optional peer dependency, so every other command (and the
// library, a separate bundle) works without it installed. Code the chunks share is one module, so
// an error class is one class whichever chunk throws or tests it.
await build({
  ...common,
  entryPoints: { cli: join(here, "src/cli.ts") },
  outdir: dist,
  splitting: true,
  chunkNames: "cli-chunks/[name]-[hash]",
  banner: { js: "#!/usr/bin/env node" },
  define: { __MA2H_AGENT_VERSION__: JSON.stringify(version) },
});
chmodSync(join(dist, "cli.js"), 0o755);

// tsconfig.build.json maps @ma2h/protocol/* to its sources, so its types are ours to inline (TypeScript
// would write no declarations for it as a package found in node_modules).
execFileSync(
  process.execPath,
  [
    join(here, "../../node_modules/dts-bundle-generator/dist/bin/dts-bundle-generator.js"),
    "--silent",
    "--no-check",
    "--project",
    join(here, "tsconfig.build.json"),
    "-o",
    join(dist, "index.d.ts"),
    join(here, "src/index.ts"),
  ],
  { stdio: "inherit" },
);

// The published files must not import the private package (an install could not resolve it).
for (const file of ["index.js", "cli.js", "index.d.ts"]) {
  if (/(?:from\s*|import\(\s*|require\(\s*)["']@ma2h\/protocol/.test(readFileSync(join(dist, file), "utf8")))
    throw new Error(`dist/${file} imports @ma2h/protocol, which is private: it must be bundled in`);
}

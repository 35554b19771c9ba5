// Compiles the Hub's Node entry points ahead of time (part of `npm run build`): every entry of
// bin/launcher.mjs (hub, web, worker, migrate, embedded-init, the `ma2h-hub` CLI) with the lib/ code
// it uses, bundled by esbuild into dist/<name>.mjs as ESM. node_modules stay external (Prisma's
// generated client loads its wasm query compiler from @prisma/client, Next its own files, as under
// tsx), all but the workspace package @ma2h/protocol: it is TypeScript source, which Node cannot
// load, so it is bundled in like lib/. Code splitting: what an entry imports with `await import()`
// becomes a chunk under dist/chunks/ that loads only when used (the CLI's commands, say), and code
// the entries share is one chunk. Next's .next build is separate (`next build`); the web bundle finds
// it from the repository root. dist/<name>.inputs.json maps each repository file an entry and its
// chunks were made from to the SHA-256 of its content: bin/launcher.mjs runs a bundle only while
// every one of them still has that content, and the TypeScript through tsx otherwise, so an edit in
// development is never masked by a stale bundle — and a source rewritten unchanged (`prisma
// generate`) keeps it.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { build } from "esbuild";
import { contentHash, ENTRIES, root } from "../bin/launcher.mjs";

const dist = join(root, "dist");

/** Bare imports are packages and stay external, except the workspace's TypeScript source package. */
const BUNDLED = /^@ma2h\/protocol(\/|$)/;
const externalPackages = {
  name: "external-packages",
  setup(build) {
    // `@/…` is the tsconfig path alias of the repository root, resolved by esbuild as usual.
    build.onResolve({ filter: /^[^./]/ }, ({ path }) =>
      path.startsWith("@/") || BUNDLED.test(path) ? undefined : { path, external: true },
    );
  },
};
// A build cut short leaves no lists of inputs, so the launcher runs the sources.
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

const { metafile } = await build({
  absWorkingDir: root,
  entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, source]) => [name, join(root, source)])),
  outdir: dist,
  entryNames: "[name]",
  chunkNames: "chunks/[name]-[hash]",
  outExtension: { ".js": ".mjs" },
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node20",
  plugins: [externalPackages],
  tsconfig: join(root, "tsconfig.json"),
  sourcemap: false,
  metafile: true,
  logLevel: "warning",
});

// For each entry: the repository files (relative to the root) of its output and of every chunk it
// reaches, statically or lazily; node_modules are external and not part of it.
const outputs = metafile.outputs;
for (const name of Object.keys(ENTRIES)) {
  const out = relative(root, join(dist, `${name}.mjs`));
  const files = new Set();
  const seen = new Set();
  const visit = (path) => {
    if (seen.has(path) || !outputs[path]) return;
    seen.add(path);
    for (const input of Object.keys(outputs[path].inputs)) if (!input.includes("node_modules/")) files.add(input);
    for (const imp of outputs[path].imports) if (!imp.external) visit(imp.path);
  };
  visit(out);
  if (files.size === 0) throw new Error(`no inputs recorded for ${out}`);
  const inputs = Object.fromEntries([...files].sort().map((file) => [file, contentHash(join(root, file))]));
  writeFileSync(join(dist, `${name}.inputs.json`), `${JSON.stringify({ inputs }, null, 1)}\n`);
}

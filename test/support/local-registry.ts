/**
 * A local npm registry for the tests that `npm install` a packed package (the SDK's tarball): it
 * serves, for any package in the repository's node_modules, the version installed there — its
 * packument (`GET /<name>`) and a tarball made from the installed folder. npm resolves the tarball's
 * dependencies through it exactly as through the public registry (ranges, engines, the dependency
 * tree), but without the network: an install that took 5 s on a good day took 140 s when the
 * registry was slow, and the packuments npm needs are never in its cache after `npm ci` (which reads
 * the lockfile, not the registry's metadata). A range the installed version does not satisfy fails
 * the install (ETARGET), as it would for a published package missing that version.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "./hub";

export interface LocalRegistry {
  /** The registry's URL, for NPM_CONFIG_REGISTRY. */
  url: string;
  /** The package names npm asked for, in order (what an install resolved through here). */
  requested: string[];
  close(): Promise<void>;
}

/** Every package folder under the repository's node_modules (nested ones too): name → version → folder. */
function installedPackages(): Map<string, Map<string, string>> {
  const index = new Map<string, Map<string, string>>();
  const add = (name: string, dir: string) => {
    const manifest = join(dir, "package.json");
    if (!existsSync(manifest)) return;
    const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version?: string };
    if (typeof version !== "string") return;
    if (!index.has(name)) index.set(name, new Map());
    const versions = index.get(name) as Map<string, string>;
    if (!versions.has(version)) versions.set(version, dir);
    if (existsSync(join(dir, "node_modules"))) nested.push(join(dir, "node_modules"));
  };
  // Breadth first: a hoisted version is found before any nested copy of the same name.
  const nested: string[] = [join(repoRoot, "node_modules")];
  const walk = (modules: string) => {
    for (const entry of readdirSync(modules, { withFileTypes: true })) {
      if (entry.name.startsWith(".") || !entry.isDirectory()) continue;
      if (entry.name.startsWith("@")) {
        for (const scoped of readdirSync(join(modules, entry.name), { withFileTypes: true }))
          if (scoped.isDirectory()) add(`${entry.name}/${scoped.name}`, join(modules, entry.name, scoped.name));
      } else add(entry.name, join(modules, entry.name));
    }
  };
  for (let i = 0; i < nested.length; i++) walk(nested[i] as string);
  return index;
}

export async function startLocalRegistry(): Promise<LocalRegistry> {
  const scratch = mkdtempSync(join(tmpdir(), "ma2h-registry-"));
  let index: Map<string, Map<string, string>> | undefined;
  const tarballs = new Map<string, Buffer>();
  const requested: string[] = [];

  /** The installed folder of name@version as a tarball (made once). */
  function tarballOf(name: string, version: string, dir: string): Buffer {
    const key = `${name}@${version}`;
    const made = tarballs.get(key);
    if (made) return made;
    const file = join(scratch, `${key.replace(/[/@]/g, "_")}.tgz`);
    // `package/` at the root, as npm packs; a nested node_modules holds other packages, not this one.
    const tar = spawnSync(
      "tar",
      ["-czf", file, "--exclude=./node_modules", "--transform", "s,^\\.,package,", "-C", dir, "."],
      { encoding: "utf8" },
    );
    if (tar.status !== 0) throw new Error(`tar of ${dir} failed: ${tar.stderr}`);
    const bytes = readFileSync(file);
    tarballs.set(key, bytes);
    return bytes;
  }

  const server = createServer((req, res) => {
    index ??= installedPackages();
    const path = decodeURIComponent((req.url ?? "/").split("?")[0] ?? "/").replace(/^\/+/, "");
    const asTarball = /^(.+)\/-\/([^/]+)\.tgz$/.exec(path);
    const name = asTarball ? (asTarball[1] as string) : path;
    const versions = index.get(name);
    const notFound = () =>
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "Not found" }));
    if (!versions) return notFound();
    const base = name.split("/").pop() as string;
    if (asTarball) {
      const version = [...versions.keys()].find((v) => `${base}-${v}` === asTarball[2]);
      if (!version) return notFound();
      res
        .writeHead(200, { "content-type": "application/octet-stream" })
        .end(tarballOf(name, version, versions.get(version) as string));
      return;
    }
    requested.push(name);
    const origin = `http://127.0.0.1:${port}`;
    const entries = [...versions].map(([version, dir]) => {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, unknown>;
      const tarball = tarballOf(name, version, dir);
      return [
        version,
        {
          ...manifest,
          _id: `${name}@${version}`,
          dist: {
            tarball: `${origin}/${name}/-/${base}-${version}.tgz`,
            integrity: `sha512-${createHash("sha512").update(tarball).digest("base64")}`,
            shasum: createHash("sha1").update(tarball).digest("hex"),
          },
        },
      ] as const;
    });
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        _id: name,
        name,
        // The hoisted version (found first), as the repository's own install chose it.
        "dist-tags": { latest: entries[0]?.[0] },
        versions: Object.fromEntries(entries),
      }),
    );
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/`,
    requested,
    async close() {
      await new Promise<void>((ok) => server.close(() => ok()));
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/**
 * npm's environment for an install through `registry`, with a cache of its own under `dir`: this
 * process's environment without the npm_config_* settings `npm run` put there (a lower-case
 * npm_config_registry would compete with ours).
 */
export function registryEnv(registry: LocalRegistry, dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) if (/^npm_config_/i.test(name)) delete env[name];
  return Object.assign(env, {
    NPM_CONFIG_REGISTRY: registry.url,
    NPM_CONFIG_CACHE: join(dir, ".npm-cache"),
    NPM_CONFIG_AUDIT: "false",
    NPM_CONFIG_FUND: "false",
    NPM_CONFIG_UPDATE_NOTIFIER: "false",
  });
}

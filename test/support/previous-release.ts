/**
 * The previous release of the Hub as a runnable tree, for the upgrade drill (test/drills.test.ts):
 * its commit's files (`git archive`, so the repository's worktrees and index are left alone) in a
 * temporary directory, run from their TypeScript sources through tsx (no build: no second `next
 * build`). Every package its lock names must be locked here at the same version, so it reuses this checkout's node_modules entry
 * by entry, except its own workspace packages (@ma2h/*), which point at its own packages/; its Prisma
 * client is generated from its own schema (or this checkout's is reused when the schema is the same).
 * Its web process serves the /v1 protocol lane (submit, poll, resolve: server/protocol-lane.ts) and
 * /healthz from its own code; the Next routes it answers come from this checkout's `.next` build,
 * linked in (it has no build of its own).
 */
import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "./hub";

/**
 * The release the drill upgrades from: the commit the deployment work (#52) started from. Move it
 * forward at each release, to the last one operators run.
 */
export const PREVIOUS_RELEASE = "f02cd9c2031917c52089150bd3039d475c217a33";

function exec(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(cmd, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${cmd} ${args.join(" ")}: ${stderr || err.message}`)) : resolve(stdout),
    ),
  );
}

export interface PreviousTree {
  dir: string;
  commit: string;
  /** How many migrations it ships (HEAD may ship more). */
  migrations: string[];
  remove(): void;
}

export async function previousTree(commit = PREVIOUS_RELEASE): Promise<PreviousTree> {
  const dir = mkdtempSync(join(tmpdir(), "ma2h-previous-"));
  // git archive | tar -x: the commit's tracked files, nothing else.
  await new Promise<void>((resolve, reject) => {
    const git = spawn("git", ["archive", "--format=tar", commit], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
    const tar = spawn("tar", ["-x", "-C", dir], { stdio: ["pipe", "ignore", "pipe"] });
    let err = "";
    git.stderr.on("data", (d: Buffer) => (err += d.toString()));
    tar.stderr.on("data", (d: Buffer) => (err += d.toString()));
    git.stdout.pipe(tar.stdin);
    tar.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`git archive ${commit}: ${err}`))));
  });
  // Every package it locks must be installed here at the same version (HEAD may lock more).
  const lock = (root: string) =>
    (
      JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
        packages: Record<string, { version?: string }>;
      }
    ).packages;
  const ours = lock(repoRoot);
  const differs = Object.entries(lock(dir)).filter(
    ([path, p]) => path.startsWith("node_modules/") && ours[path]?.version !== p.version,
  );
  if (differs.length > 0)
    throw new Error(
      `${commit} locks ${differs.length} package(s) at other versions than this checkout (${differs[0]?.[0]}): install its dependencies instead`,
    );
  // node_modules: this checkout's entries, its own workspace packages.
  const modules = join(dir, "node_modules");
  mkdirSync(join(modules, "@ma2h"), { recursive: true });
  for (const entry of readdirSync(join(repoRoot, "node_modules"))) {
    if (entry === "@ma2h") continue;
    symlinkSync(join(repoRoot, "node_modules", entry), join(modules, entry));
  }
  for (const pkg of readdirSync(join(dir, "packages"))) {
    try {
      const name = (JSON.parse(readFileSync(join(dir, "packages", pkg, "package.json"), "utf8")) as { name: string })
        .name;
      if (name.startsWith("@ma2h/")) symlinkSync(join(dir, "packages", pkg), join(modules, name));
    } catch {
      /* a package without package.json (packages/python) */
    }
  }
  symlinkSync(join(repoRoot, ".next"), join(dir, ".next"));
  const schema = (root: string) => readFileSync(join(root, "prisma/schema.prisma"), "utf8");
  if (schema(dir) === schema(repoRoot)) symlinkSync(join(repoRoot, "lib/generated"), join(dir, "lib/generated"));
  else await exec(process.execPath, [join(repoRoot, "node_modules/prisma/build/index.js"), "generate"], dir);
  const migrations = readdirSync(join(dir, "prisma/migrations")).filter((m) => /^\d/.test(m));
  return { dir, commit, migrations, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

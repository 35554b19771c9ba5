/**
 * `npm run hub`: the whole Hub on one box. Without DATABASE_URL it first starts the embedded
 * PostgreSQL (server/embedded-db.ts; implies dev mode on 127.0.0.1). It applies migrations
 * (idempotent), then runs the web and worker processes as children in this process's own process
 * group — signalling the group stops all of it — and restarts a child that dies. On SIGTERM/SIGINT
 * it stops taking work and exits within 10 s, stopping the embedded database too.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import { nodeArgs, root } from "../bin/launcher.mjs";
import { env, productionTransportConfigured, resetEnvCache } from "../lib/env";
import { log } from "../lib/log";
import { deployMigrations } from "./migrate";
import { logRunningCode } from "./running-code";
import { startEmbeddedDatabase, type EmbeddedDatabase } from "./embedded-db";
import { persistedSecret } from "./embedded-env";
import { transportMode } from "./transport";

type Name = "web" | "worker";

const running = new Map<Name, ChildProcess>();
const restarts: Record<Name, number> = { web: 0, worker: 0 };
let stopping = false;
let embedded: EmbeddedDatabase | null = null;

function start(name: Name): void {
  // The child's ahead-of-time bundle while it is fresh, else its source through tsx (bin/launcher.mjs).
  const child = spawn(process.execPath, nodeArgs(name), {
    cwd: root,
    stdio: "inherit",
    env: process.env,
  });
  running.set(name, child);
  const started = Date.now();
  child.on("exit", (code, signal) => {
    running.delete(name);
    if (stopping) return;
    // Back off while a child keeps dying at once (a taken port, a bad config), up to 30 s.
    restarts[name] = Date.now() - started > 60_000 ? 0 : restarts[name] + 1;
    const delay = Math.min(30_000, 1000 * 2 ** Math.max(0, restarts[name] - 1));
    log.error("hub child exited; restarting", { child: name, code, signal, restart_in_ms: delay });
    setTimeout(() => !stopping && start(name), delay);
  });
}

async function stop(signal: NodeJS.Signals): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info("hub stopping", { signal });
  for (const child of running.values()) child.kill("SIGTERM");
  const deadline = setTimeout(() => {
    for (const child of running.values()) child.kill("SIGKILL");
    process.exit(0);
  }, 9000);
  deadline.unref();
  while (running.size > 0) await new Promise((r) => setTimeout(r, 50));
  await embedded?.stop().catch(() => {});
  process.exit(0);
}

/** The zero-setup default: no DATABASE_URL means the embedded database, dev mode, loopback only. */
async function applyEmbeddedDefaults(): Promise<void> {
  if (process.env.DATABASE_URL) return;
  mkdirSync(join(root, ".data"), { recursive: true });
  // Dev mode only when no production transport is configured: env() refuses dev mode alongside
  // TLS or a trusted proxy (§9.4), and an operator who set those did not ask for it.
  if (!productionTransportConfigured()) process.env.MA2H_DEV_MODE = "1";
  process.env.HOST = "127.0.0.1";
  process.env.AUTH_SECRET ||= persistedSecret(join(root, ".data/auth-secret"), () => randomBytes(32).toString("hex"));
  embedded = await startEmbeddedDatabase(root);
  process.env.DATABASE_URL = embedded.url;
  resetEnvCache();
}

async function main(): Promise<void> {
  logRunningCode("hub");
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
  if (!existsSync(resolve(root, ".next/BUILD_ID"))) {
    throw new Error("No build found: run `npm run build` before `npm run hub`.");
  }
  await applyEmbeddedDefaults();
  const e = env();
  transportMode(e);
  const applied = await deployMigrations(e.DATABASE_URL, (r) => {
    if (r.resealed) log.info("sealed values re-sealed for their purpose and row", { count: r.resealed });
    // Old values sealed under a secret changed since: unusable before, left unused now.
    if (r.unopenable.length)
      log.warn("sealed values that do not open under the current secret; re-enter them", { rows: r.unopenable });
  });
  log.info("migrations", { applied });
  if (stopping) return;
  start("web");
  start("worker");
}

main().catch(async (err: Error) => {
  log.error("hub failed to start", { error: err });
  process.stderr.write(`${err.message}\n`);
  await embedded?.stop().catch(() => {});
  process.exit(1);
});

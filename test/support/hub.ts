/**
 * Runs the real Hub (the built Next app behind server/web.ts, the worker, or the whole `hub`
 * supervisor) as child processes on a free port, in its own process group, capturing stdout and
 * stderr for the log tests. Requires `npm run build` first; each entry runs from its dist/ bundle
 * while fresh and from its TypeScript source through tsx otherwise (bin/launcher.mjs).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { nodeArgs } from "../../bin/launcher.mjs";
import { waitFor } from "./wait";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

export const TEST_AUTH_SECRET = "test-auth-secret-0123456789abcdef0123456789abcdef";

export async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once("error", fail);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => ok(port));
    });
  });
}

export type HubMode = "hub" | "web" | "worker";

export interface HubProcess {
  mode: HubMode;
  url: string;
  port: number;
  child: ChildProcess;
  output(): string;
  /** SIGTERM (or another signal) to the whole process group; resolves on exit with the elapsed ms. */
  stop(signal?: NodeJS.Signals): Promise<number>;
  exited: Promise<number | null>;
}

export interface HubOptions {
  databaseUrl: string;
  mode?: HubMode;
  port?: number;
  env?: Record<string, string | undefined>;
  /** Wait for /.well-known/ma2h (web/hub) before resolving. */
  waitReady?: boolean;
}

export function hubEnv(
  databaseUrl: string,
  port: number,
  extra: Record<string, string | undefined> = {},
): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    MA2H_DEV_MODE: "1",
    MA2H_PUBLIC_URL: `http://127.0.0.1:${port}`,
    AUTH_SECRET: TEST_AUTH_SECRET,
    LOG_LEVEL: "info",
    // A test's web serves a handful of routes for seconds: loading all of them after listen (what a
    // Hub does by default) was a sixth of each web start's CPU, over a hundred starts a run. Routes
    // load on first use instead, as Next does without the preload; test/hub-contract.test.ts runs
    // the default.
    MA2H_ROUTE_PRELOAD: "0",
    ...extra,
  };
}

/**
 * V8 flags of the Hub processes the tests start. Prisma's query compiler is WebAssembly: V8 compiles
 * it on its baseline tier (Liftoff), then again in the background on its optimising tier — about
 * half a CPU-second per process within seconds of its start, which pays off in a Hub that runs for
 * days. A test's Hub lives for seconds and a run starts over a hundred of them on two cores, so they
 * stay on the baseline tier, as the admin CLI always does (cli/ma2h-hub.ts). Only how V8 compiles the
 * WebAssembly differs; the code that runs is the same. (The `hub` supervisor's children run as in
 * production.)
 */
const TEST_HUB_V8_FLAGS = ["--liftoff-only"];

export async function startHub(options: HubOptions): Promise<HubProcess> {
  const mode = options.mode ?? "web";
  const port = options.port ?? (await freePort());
  // As `npm run <mode>` starts it: the ahead-of-time bundle while fresh, else the source via tsx.
  const child = spawn(process.execPath, [...TEST_HUB_V8_FLAGS, ...nodeArgs(mode)], {
    cwd: repoRoot,
    env: hubEnv(options.databaseUrl, port, options.env),
    detached: true, // its own process group, so a test can signal all of it
    stdio: ["ignore", "pipe", "pipe"],
  });
  const hub = watchHub(child, mode, port);
  if (options.waitReady !== false && mode !== "worker") await waitForReady(hub);
  return hub;
}

/**
 * A Hub process the test spawned (detached, stdout and stderr piped) as a `HubProcess`: what it
 * printed, its exit, and a stop that signals its whole process group.
 */
export function watchHub(child: ChildProcess, mode: HubMode, port: number): HubProcess {
  let buffer = "";
  child.stdout?.on("data", (d: Buffer) => (buffer += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (buffer += d.toString()));
  // On `close`, not `exit`: `exit` can come before the last of stdout/stderr is read, and a test that
  // reads what a process printed once it ended (a refusal to start) must see all of it.
  const exited = new Promise<number | null>((ok) => child.on("close", (code) => ok(code)));
  let gone = false;
  void exited.then(() => (gone = true));
  return {
    mode,
    url: `http://127.0.0.1:${port}`,
    port,
    child,
    exited,
    output: () => buffer,
    async stop(signal = "SIGTERM") {
      const t0 = Date.now();
      if (!gone) {
        try {
          process.kill(-(child.pid as number), signal);
        } catch {
          /* already gone */
        }
        await exited;
      }
      return Date.now() - t0;
    },
  };
}

export async function waitForReady(hub: HubProcess, timeoutMs = 60_000): Promise<void> {
  await waitForDiscovery(hub, hub.url, timeoutMs, 200);
}

/** A started process: its exit and what it printed (HubProcess, and the clones test/embedded runs). */
export interface Watched {
  exited: Promise<number | null>;
  output(): string;
}

/**
 * Until `${url}/.well-known/ma2h` answers 200. An early exit fails at once, on the exit event, not at
 * the next probe or the timeout; either failure carries what the process printed.
 */
export async function waitForDiscovery(proc: Watched, url: string, timeoutMs: number, every: number): Promise<void> {
  let over = false;
  const died = proc.exited.then(() => {
    throw new Error(`hub exited early:\n${proc.output()}`);
  });
  const up = waitFor(
    async () => {
      if (over) return true; // the exit already decided it: stop probing
      const res = await fetch(`${url}/.well-known/ma2h`).catch(() => null);
      return res?.ok ?? false;
    },
    { timeout: timeoutMs, every, what: `${url}/.well-known/ma2h` },
  ).catch((err: Error) => {
    throw new Error(`hub not ready within ${timeoutMs} ms (${err.message}):\n${proc.output()}`);
  });
  try {
    await Promise.race([up, died]);
  } finally {
    over = true;
  }
}

/** A process expected to refuse to start: its exit code and output, once it has exited (60 s at most). */
export async function refusalOf(proc: Watched): Promise<{ code: number | null; output: string }> {
  const timeout = new Promise<never>((_, fail) =>
    setTimeout(() => fail(new Error(`still running after 60 s:\n${proc.output()}`)), 60_000).unref(),
  );
  const code = await Promise.race([proc.exited, timeout]);
  return { code, output: proc.output() };
}

/** A tiny client for the /v1 API with a bearer credential. */
export function client(baseUrl: string, token?: string) {
  const headers = (extra: Record<string, string> = {}) => ({
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...extra,
  });
  return {
    async post(path: string, body?: unknown, extra: Record<string, string> = {}) {
      const init: RequestInit = { method: "POST", headers: headers(extra) };
      if (body !== undefined) {
        init.body = typeof body === "string" ? body : JSON.stringify(body);
        init.headers = { "content-type": "application/json", ...headers(extra) };
      }
      const res = await fetch(baseUrl + path, init);
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
    },
    async get(path: string, extra: Record<string, string> = {}) {
      const res = await fetch(baseUrl + path, { headers: headers(extra) });
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
    },
    async delete(path: string, extra: Record<string, string> = {}) {
      const res = await fetch(baseUrl + path, { method: "DELETE", headers: headers(extra) });
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
    },
  };
}

/**
 * Shared pieces of the push-delivery tests: a web + worker pair pointed at loopback receivers, push
 * submits and resolves over the real API, the obligation rows, and the `ma2h-hub` CLI as a child
 * process with the test database's environment.
 */
import { execFile } from "node:child_process";
import { expect } from "vitest";
import { db } from "../../lib/db";
import { client, freePort, repoRoot, startHub, TEST_AUTH_SECRET, type HubProcess } from "./hub";
import { envelope } from "./provision";
import { waitFor } from "./wait";

export type Auth = { scheme: "hmac"; secret_ref: string } | { scheme: "bearer" | "apikey"; token_ref: string } | null;

export interface Pair {
  web: HubProcess;
  worker: HubProcess;
  stop(): Promise<void>;
}

/** Resolves once the worker has logged that it runs (its queues and sweeps are up). */
export async function workerRunning(worker: HubProcess, timeoutMs = 60_000): Promise<void> {
  const running = () => worker.output().includes('"msg":"worker running"');
  // Its log line, or its exit (which fails at once rather than at the timeout).
  await waitFor(() => running() || worker.child.exitCode !== null, { timeout: timeoutMs }).catch(() => {});
  if (!running()) throw new Error(`worker did not start:\n${worker.output()}`);
}

/** A worker, resolved once it runs; `readyAt` is when that was seen (Date.now()). */
export async function startWorker(
  databaseUrl: string,
  env: Record<string, string | undefined>,
): Promise<HubProcess & { readyAt: number }> {
  const worker = await startHub({ databaseUrl, mode: "worker", env });
  await workerRunning(worker);
  return Object.assign(worker, { readyAt: Date.now() });
}

/**
 * The web and worker processes with the same configuration, both ready. As in production they share
 * MA2H_PUBLIC_URL — the web's — so the links the worker writes (a mail's) lead to the web.
 */
export async function startPair(databaseUrl: string, env: Record<string, string | undefined>): Promise<Pair> {
  const port = await freePort();
  const shared = { MA2H_PUBLIC_URL: `http://127.0.0.1:${port}`, ...env };
  const [web, worker] = await Promise.all([
    startHub({ databaseUrl, mode: "web", port, env: shared }),
    startWorker(databaseUrl, shared),
  ]);
  return { web, worker, stop: async () => void (await Promise.all([web.stop(), worker.stop()])) };
}

/** A distinctive opaque `state`, to check it comes back verbatim (unicode, numbers, nesting, order). */
export function stateFor(name: string): Record<string, unknown> {
  return {
    z_last: name,
    sealed: `v1.demo.${name}.é✓\u2028`,
    n: 1.5,
    big: 1e21,
    nested: { b: [true, null, -0.001], a: "x" },
  };
}

export interface Submitted {
  id: string;
  url: string;
  state: Record<string, unknown>;
}

/** Submits an ask (or task) whose callback pushes to `url` with `auth`. */
export async function submitPush(
  hubUrl: string,
  apiKey: string,
  agentId: string,
  url: string,
  auth: Auth,
  options: {
    type?: "ask" | "task";
    over?: Record<string, unknown>;
    name?: string;
    /** Extra request headers (a `traceparent`). */
    headers?: Record<string, string>;
  } = {},
): Promise<Submitted> {
  const type = options.type ?? "ask";
  const callback = { mode: "push", url, ...(auth ? { auth } : {}) };
  const state = stateFor(options.name ?? url);
  const base = envelope(type, agentId, { state, ...(options.over ?? {}) });
  if (type === "ask") base.request = { ...(base.request as object), callback };
  else base.action = { ...(base.action as object), callback };
  const res = await client(hubUrl, apiKey).post("/v1/messages", base, options.headers);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return { id: res.body.id as string, url, state };
}

/** Resolves with an operator token; returns Date.now() at the 200. */
export async function resolveAs(
  hubUrl: string,
  token: string,
  id: string,
  body: Record<string, unknown>,
): Promise<number> {
  const res = await client(hubUrl, token).post(`/v1/messages/${id}/resolve`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return Date.now();
}

export async function deliveryOf(messageId: string) {
  return db().pushDelivery.findFirstOrThrow({
    where: { messageId },
    include: { attemptLog: { orderBy: { attempt: "asc" } } },
  });
}

/** Polls the obligation row until `done` holds (or fails after `timeoutMs`). */
export async function waitForDelivery(
  messageId: string,
  done: (d: Awaited<ReturnType<typeof deliveryOf>>) => boolean,
  timeoutMs = 20_000,
): Promise<Awaited<ReturnType<typeof deliveryOf>>> {
  let last: Awaited<ReturnType<typeof deliveryOf>> | null = null;
  const settled = await waitFor(
    async () => {
      last = await db().pushDelivery.findFirst({
        where: { messageId },
        include: { attemptLog: { orderBy: { attempt: "asc" } } },
      });
      return last && done(last) ? last : undefined;
    },
    { timeout: timeoutMs },
  ).catch(() => undefined);
  if (settled) return settled;
  throw new Error(
    `delivery of ${messageId} did not settle within ${timeoutMs} ms: ${JSON.stringify(last, (_k, v) => (typeof v === "bigint" ? String(v) : v))}`,
  );
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  json: Record<string, any>;
}

/** `node bin/ma2h-hub.js … --json` with the test database's environment. */
export function cli(databaseUrl: string, args: string[], extraEnv: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["bin/ma2h-hub.js", ...args, "--json"],
      {
        cwd: repoRoot,
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          NODE_ENV: "production",
          DATABASE_URL: databaseUrl,
          AUTH_SECRET: TEST_AUTH_SECRET,
          LOG_LEVEL: "silent",
          ...extraEnv,
        },
        timeout: 60_000,
      },
      (err, stdout, stderr) => {
        let json: Record<string, any> = {};
        try {
          json = JSON.parse(stdout);
        } catch {
          json = { unparseable: stdout };
        }
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr, json });
      },
    );
  });
}

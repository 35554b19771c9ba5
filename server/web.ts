/**
 * The web process: a small Node HTTP server around Next's request handler. It sees the socket's
 * peer address (dev mode serves loopback peers only) and owns timeouts, so 60-second long-polls
 * (§8.2) are ours to keep; on SIGTERM it stops accepting, wakes long-polls so they answer at once,
 * and exits within the shutdown budget.
 */
import http from "node:http";
import { dirname, resolve } from "node:path";
import next from "next";
import { env } from "../lib/env";
import { log } from "../lib/log";
import { closeDb } from "../lib/db";
import { closeRedis } from "../lib/redis";
import { closeProducers } from "../lib/jobs/producer";
import { terminalWaiters } from "../lib/messages/waiters";
import { ensureSigningKey } from "../lib/keys/signing-keys";
import { assertTransportAllowed, DEV_MODE_WARNING, isLoopback, warnIgnoredSettings } from "./transport";

const root = resolve(dirname(new URL(import.meta.url).pathname), "..");
const SHUTDOWN_BUDGET_MS = 8000;

async function main(): Promise<void> {
  const e = env();
  assertTransportAllowed(e.MA2H_DEV_MODE);
  log.warn(DEV_MODE_WARNING);
  warnIgnoredSettings(e);
  const app = next({ dev: false, dir: root, hostname: e.HOST, port: e.PORT });
  await app.prepare();
  const handle = app.getRequestHandler();

  const server = http.createServer((req, res) => {
    if (!isLoopback(req.socket.remoteAddress)) {
      res.writeHead(403, { "content-type": "application/json" }).end(
        JSON.stringify({ error: { code: "not_authorized", message: "dev mode serves loopback peers only" } }),
      );
      return;
    }
    void handle(req, res);
  });
  // Long-polls hold up to 60 s; leave room above that for the response itself.
  server.requestTimeout = 120_000;
  server.headersTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  await terminalWaiters().ready();
  await ensureSigningKey();
  await new Promise<void>((ok) => server.listen(e.PORT, e.HOST, ok));
  log.info("web listening", { url: `http://${e.HOST}:${e.PORT}`, public_url: e.publicUrl });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("web stopping", { signal });
    const hardExit = setTimeout(() => process.exit(0), SHUTDOWN_BUDGET_MS).unref();
    server.close();
    server.closeIdleConnections();
    await terminalWaiters().close(); // held long-polls answer with the current status now
    await new Promise((r) => setTimeout(r, 300));
    server.closeAllConnections();
    await Promise.allSettled([closeProducers(), closeRedis(), closeDb()]);
    clearTimeout(hardExit);
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((err: Error) => {
  log.error("web failed to start", { error: err });
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
});

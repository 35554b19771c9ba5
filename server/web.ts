/**
 * The web process: a small Node HTTP server around Next's request handler. It sees the socket's
 * peer address (dev mode serves loopback peers only) and owns timeouts, so 60-second long-polls
 * (§8.2) are ours to keep; on SIGTERM it stops accepting, wakes long-polls so they answer at once,
 * and exits within the shutdown budget.
 */
import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import next from "next";
import { root } from "../bin/launcher.mjs";
import { env, metricsSettings, servesHttpsOnly, trustedProxies } from "../lib/env";
import { log } from "../lib/log";
import { hubRelease } from "../lib/release";
import { terminalWaiters } from "../lib/messages/waiters";
import { startTracing } from "../lib/telemetry/tracing";
import { refreshWebGauges } from "../lib/gauges/refresh";
import { answerScrape, isMetricsRequest } from "../lib/metrics/endpoint";
import { observeRequest } from "../lib/metrics/http";
import { screenForwarded } from "./forwarded";
import { serveProtocolLane } from "./protocol-lane";
import { preloadRoutes } from "./route-preload";
import { applyPageHeaders } from "./page-headers";
import {
  admitRequestHead,
  answerUnparseable,
  clientErrorMessage,
  isPageFormPost,
  screenPageFormPost,
} from "./request-guard";
import { admitRequest, DEV_MODE_WARNING, transportMode } from "./transport";
import { logRunningCode } from "./running-code";
import { closeIfBodyUnread } from "./unread-body";

const SHUTDOWN_BUDGET_MS = 8000;

async function main(): Promise<void> {
  logRunningCode("web");
  const e = env();
  const mode = transportMode(e);
  if (mode === "dev") log.warn(DEV_MODE_WARNING);
  // Behind a proxy or on a public address the default (127.0.0.1) is not where clients reach us.
  if (mode !== "dev" && !process.env.MA2H_PUBLIC_URL) {
    log.warn("MA2H_PUBLIC_URL is not set: poll_url and review_url will point at the default", {
      public_url: e.publicUrl,
    });
  }
  const app = next({ dev: false, dir: root, hostname: e.HOST, port: e.PORT });
  // Tracing's SDK loads only when an OTLP endpoint is set (lib/telemetry/tracing.ts).
  await Promise.all([app.prepare(), startTracing()]);
  const handle = app.getRequestHandler();

  // X-Forwarded-* is believed only from a trusted proxy (server/forwarded.ts); the page headers
  // (CSP nonce, HSTS) are set here so every response gets them (server/page-headers.ts).
  const proxies = mode === "proxy" ? trustedProxies() : null;
  const httpsOnly = servesHttpsOnly();
  // Metrics (lib/metrics/): with no token, nothing is measured and /metrics is an unknown path like
  // any other (Next's not-found page); with one, every request is timed from here and a scrape is
  // answered before Next — after the transport gate, so the token never travels in plaintext.
  const metricsToken = metricsSettings()?.token;
  // The hottest /v1 routes skip Next's router for their own handlers (server/protocol-lane.ts).
  const lane = e.MA2H_PROTOCOL_LANE;
  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (metricsToken !== undefined) observeRequest(req, res);
    screenForwarded(req, proxies);
    applyPageHeaders(req, res, httpsOnly);
    // Before anything can answer: a body left unread closes the connection after the answer.
    closeIfBodyUnread(req, res);
    if (!admitRequest(mode, req, res) || !admitRequestHead(req, res)) return;
    if (metricsToken !== undefined && isMetricsRequest(req)) {
      void answerScrape(req, res, metricsToken, "web", refreshWebGauges);
      return;
    }
    if (lane && serveProtocolLane(req, res, e.publicUrl)) return;
    if (!isPageFormPost(req)) {
      void handle(req, res);
      return;
    }
    void screenPageFormPost(req, res).then((checked) => {
      if (checked) void handle(checked, res);
    });
  };
  const tls = () => ({ cert: readFileSync(e.TLS_CERT_FILE as string), key: readFileSync(e.TLS_KEY_FILE as string) });
  const server = mode === "tls" ? https.createServer(tls(), onRequest) : http.createServer(onRequest);
  if (server instanceof https.Server) {
    // Certificate renewal without a restart: SIGHUP re-reads the files.
    process.on("SIGHUP", () => {
      try {
        server.setSecureContext(tls());
        log.info("TLS certificate reloaded");
      } catch (err) {
        log.error("TLS certificate reload failed; keeping the previous one", { error_name: (err as Error).name });
      }
    });
  }
  // Heads that never reach onRequest still get the §8.5 envelope (server/request-guard.ts).
  server.on("clientError", (err: NodeJS.ErrnoException, socket) => answerUnparseable(socket, clientErrorMessage(err)));
  server.on("connect", (_req, socket) => answerUnparseable(socket, "CONNECT is not served"));
  // Long-polls hold up to 60 s; leave room above that for the response itself.
  server.requestTimeout = 120_000;
  server.headersTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  // A database that is down at start must not keep the web from answering: /healthz stays 200
  // and /readyz 503 until it returns. Long-polls reconnect the LISTEN on first use.
  try {
    await terminalWaiters().ready();
  } catch (err) {
    log.warn("database unavailable at start; /readyz answers 503 until it returns", {
      error_name: (err as Error).name,
    });
  }
  // Every parked long-poll reconnects at once after a restart or a network blip: a listen backlog
  // deeper than Node's default 511 keeps that burst from overflowing into resets (the kernel caps it
  // at net.core.somaxconn).
  await new Promise<void>((ok) => server.listen({ port: e.PORT, host: e.HOST, backlog: 4096 }, ok));
  log.info("web listening", {
    url: `${mode === "tls" ? "https" : "http"}://${e.HOST}:${e.PORT}`,
    mode,
    public_url: e.publicUrl,
    ...hubRelease(),
  });
  if (e.MA2H_ROUTE_PRELOAD) preloadRoutes(app);
  // Choice A22: the liveness stamp that lets the worker's session sweep run (lib/sessions/liveness.ts).
  void import("../lib/sessions/liveness").then(({ startLiveness }) => startLiveness());
  // Not needed to answer, so after listen: loading the Prisma client and its query compiler
  // is the slowest part of a start. The signing key is also ensured on first use (and by the worker).
  void import("../lib/keys/signing-keys")
    .then(({ ensureSigningKey }) => ensureSigningKey())
    // A key this Hub did not generate is named here (kids only) and left out of the keys document.
    .catch((err: Error) =>
      log.error("signing keys not ensured at start", { error_name: err.name, error: err.message }),
    );
  void import("../lib/audit/checkpoints")
    .then(({ runsAsAuditOwner }) => runsAsAuditOwner())
    .then((owner) => {
      if (owner)
        log.warn(
          "the web runs as the owner of the audit trail (audit_events): it could rewrite it; run the Hub under a role that does not own it (docs/DEPLOYMENT.md)",
        );
    })
    .catch(() => {}); // the database may be down at start; /readyz says so

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
    // Loaded only now: the queue producers (BullMQ), Redis and the Prisma client are process-wide
    // (lib/process-wide.ts), opened by the routes if at all, and loading them would delay the start.
    const [{ closeProducers }, { closeRedis }, { closeDb }] = await Promise.all([
      import("../lib/queue/producer"),
      import("../lib/redis"),
      import("../lib/db"),
    ]);
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

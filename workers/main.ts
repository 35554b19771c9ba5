/**
 * The worker process: runs the job handlers (lib/jobs/registry.ts) and the sweeps that make
 * PostgreSQL, not the queue, the source of truth (§3.1). No logic of its own — every handler and
 * sweep calls a lib/ verb.
 */
import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import { env, workerMetricsSettings } from "../lib/env";
import { log } from "../lib/log";
import { hubRelease } from "../lib/release";
import { startTracing } from "../lib/telemetry/tracing";
import { closeDb } from "../lib/db";
import { closeRedis } from "../lib/redis";
import { closeProducers } from "../lib/queue/producer";
import { makeWorker } from "../lib/queue/queues";
import { JOBS } from "../lib/jobs/registry";
import { sweeps } from "../lib/jobs/sweeps";
import { startSweepTimer } from "../lib/jobs/sweep-timer";
import { ensureSigningKey } from "../lib/keys/signing-keys";
import { ensureAuditKey, runsAsAuditOwner } from "../lib/audit/checkpoints";
import { startJobWakes } from "../lib/jobs/wake";
import { notificationListener } from "../lib/pubsub/listener";
import { refreshWorkerGauges } from "../lib/gauges/refresh";
import { answerScrape, isMetricsRequest } from "../lib/metrics/endpoint";
import { HubError } from "@ma2h/protocol/errors";
import { isLoopback, transportMode } from "../server/transport";
import { logRunningCode } from "../server/running-code";

/**
 * The worker's own `GET /metrics` on MA2H_WORKER_METRICS_PORT (its push attempts and expiries are
 * counted in this process; docs/decisions/operations-and-performance.md "Metrics"). Its token is MA2H_WORKER_METRICS_TOKEN or
 * the web's; the transport rule is the web's: HTTPS with the web's certificate in TLS mode, loopback
 * peers only in dev mode; in trusted-proxy mode plaintext, no proxy in front of it — so on loopback
 * unless MA2H_WORKER_METRICS_HOST says otherwise (lib/env.ts). Anything else is the 404 envelope.
 */
async function serveMetrics(): Promise<http.Server | null> {
  const settings = workerMetricsSettings();
  if (!settings) return null;
  const e = env();
  const mode = transportMode(e);
  const { token, port, host } = settings;
  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const devRefused = mode === "dev" && !isLoopback(req.socket.remoteAddress);
    if (!devRefused && isMetricsRequest(req)) return void answerScrape(req, res, token, "worker", refreshWorkerGauges);
    const err = devRefused
      ? new HubError("not_authorized", "dev mode serves loopback peers only")
      : new HubError("not_found", "no such endpoint");
    res.writeHead(err.status, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(err.toBody()));
  };
  const server =
    mode === "tls"
      ? https.createServer(
          { cert: readFileSync(e.TLS_CERT_FILE as string), key: readFileSync(e.TLS_KEY_FILE as string) },
          onRequest,
        )
      : http.createServer(onRequest);
  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen({ port, host }, ok);
  });
  log.info("worker metrics listening", { port, host });
  return server;
}

async function main(): Promise<void> {
  logRunningCode("worker");
  const e = env();
  await startTracing(); // its SDK only when an OTLP endpoint is set (lib/telemetry/tracing.ts)
  await ensureSigningKey();
  await ensureAuditKey();
  if (await runsAsAuditOwner())
    log.warn(
      "the worker runs as the owner of the audit trail (audit_events): it could rewrite it; run the Hub under a role that does not own it (docs/DEPLOYMENT.md)",
    );
  const workers = JOBS.map((job) => {
    const w = makeWorker(job.contract.queue, (j) => job.handle(j.data), job.concurrency);
    w.worker.on("failed", (j, err) =>
      log.warn("job failed", { queue: job.contract.queue, job_id: j?.id ?? null, error_name: err.name }),
    );
    return w;
  });

  const wakes = await startJobWakes();
  const timer = startSweepTimer(sweeps(e));
  const metricsServer = await serveMetrics();
  log.info("worker running", {
    sweep_ms: e.MA2H_EXPIRY_SWEEP_MS,
    queue_backend: e.REDIS_URL ? "redis" : "postgres",
    ...hubRelease(),
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("worker stopping", { signal });
    setTimeout(() => process.exit(0), 8000).unref();
    metricsServer?.close();
    await Promise.allSettled([...workers.map((w) => w.close()), timer.stop(), wakes.stop()]);
    await Promise.allSettled([closeProducers(), closeRedis(), notificationListener().close(), closeDb()]);
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((err: Error) => {
  log.error("worker failed to start", { error: err });
  process.exit(1);
});

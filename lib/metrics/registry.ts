/**
 * The Hub's Prometheus metrics (docs/DEPLOYMENT.md "Metrics"): every metric is defined here, once,
 * on a registry of our own kept process-wide — Next bundles the app routes apart from the server
 * entry, and both must count into the same objects. A leaf: the domain imports it to count events
 * after they commit; scrape-time readings of domain state live in lib/gauges/.
 *
 * Labels are low-cardinality by construction: a route template (lib/metrics/http.ts), a status code,
 * a verb, an outcome, a queue name — never an id, a raw path or an account.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { processWide } from "../process-wide";
import { HttpTally } from "./tally";

/** Seconds; a long-poll or drain holds up to 60 s (§8.2), so the top buckets reach past it. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 65];
/** Seconds; a push attempt is bounded by MA2H_PUSH_TIMEOUT_MS (10 s by default). */
const PUSH_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

function define() {
  // Each process exposes only what it measures: a worker's scrape has no open-items gauge stuck at 0.
  const web = new Registry();
  const worker = new Registry();
  const both = [web, worker];
  const http = new HttpTally(
    { counter: "ma2h_http_requests_total", histogram: "ma2h_http_request_duration_seconds" },
    {
      counter: "HTTP requests answered, by route template, method and status code (499: the client left first).",
      histogram:
        "Time from the request head to the last byte of the answer, by route template, method and status code (long-polls and streams included).",
    },
    HTTP_BUCKETS,
  );
  // The registry takes any object with name, help, type and get() (prom-client's Metric shape).
  web.registerMetric(http.counter() as unknown as Counter);
  web.registerMetric(http.histogram() as unknown as Histogram);
  return {
    registries: { web, worker },
    http,
    submits: new Counter({
      name: "ma2h_submits_total",
      help: "Messages accepted by POST /v1/messages (idempotent replays not counted), by verb.",
      labelNames: ["verb"] as const,
      registers: [web],
    }),
    resolutions: new Counter({
      name: "ma2h_resolutions_total",
      help: "Terminal transitions committed by this process (resolve, cancel, expiry), by resolution.",
      labelNames: ["outcome"] as const,
      registers: both,
    }),
    pushAttempts: new Counter({
      name: "ma2h_push_attempts_total",
      help: "§8.3 push attempts made by this worker, by outcome.",
      labelNames: ["outcome"] as const,
      registers: [worker],
    }),
    pushDuration: new Histogram({
      name: "ma2h_push_attempt_duration_seconds",
      help: "Latency of the callback's answer to a push attempt that was sent, by outcome.",
      labelNames: ["outcome"] as const,
      buckets: PUSH_BUCKETS,
      registers: [worker],
    }),
    // Scrape-time gauges: set by lib/gauges/ just before each exposition.
    openItems: new Gauge({
      name: "ma2h_open_items",
      help: "Asks and tasks open now (all accounts).",
      registers: [web],
    }),
    expiryLag: new Gauge({
      name: "ma2h_expiry_lag_seconds",
      help: "How long the most overdue open item has been past its expires_at (0 when none is).",
      registers: [web],
    }),
    queueJobs: new Gauge({
      name: "ma2h_queue_jobs",
      help: "BullMQ jobs per queue and state.",
      labelNames: ["queue", "state"] as const,
      registers: [web],
    }),
    queueLag: new Gauge({
      name: "ma2h_queue_lag_seconds",
      help: "How long the oldest due job of a queue has waited for a worker (0 when none waits).",
      labelNames: ["queue"] as const,
      registers: [web],
    }),
    parked: new Gauge({
      name: "ma2h_parked_requests",
      help: "Requests parked in this web process: long-polls (§8.2), mailbox drains (§8.7) and mailbox streams (§8.7.2).",
      labelNames: ["kind"] as const,
      registers: [web],
    }),
    sseConnections: new Gauge({
      name: "ma2h_inbox_streams",
      help: "Open inbox event streams (server-sent events) in this web process.",
      registers: [web],
    }),
    dbPool: new Gauge({
      name: "ma2h_db_pool_connections",
      help: "This process's PostgreSQL pool: connections in use, idle, and requests waiting for one.",
      labelNames: ["state"] as const,
      registers: both,
    }),
    sourceUp: new Gauge({
      name: "ma2h_metrics_source_up",
      help: "1 when a scrape-time source answered this scrape, 0 when it failed (its gauges keep the last value).",
      labelNames: ["source"] as const,
      registers: both,
    }),
  };
}

export type HubMetrics = ReturnType<typeof define>;

export type MetricsRole = keyof HubMetrics["registries"];

/** The process's metrics. */
export function metrics(): HubMetrics {
  return processWide("ma2h.metrics", define);
}

/**
 * The worker process: runs job handlers and the sweeps that make PostgreSQL, not the queue, the
 * source of truth (§3.1). No logic of its own — every handler calls a lib/ verb.
 */
import { env } from "../lib/env";
import { log } from "../lib/log";
import { closeDb } from "../lib/db";
import { closeRedis } from "../lib/redis";
import { closeProducers } from "../lib/jobs/producer";
import { QUEUE, makeWorker } from "../lib/jobs/queues";
import { handleExpireJob } from "../lib/jobs/expiry";
import { handlePushJob, sweepDueDeliveries } from "../lib/jobs/push";
import { runSweeps } from "../lib/jobs/sweep";
import { ensureSigningKey } from "../lib/keys/signing-keys";

async function main(): Promise<void> {
  const e = env();
  await ensureSigningKey();
  const expiry = makeWorker(QUEUE.expire, (job) => handleExpireJob(job.data));
  const push = makeWorker(QUEUE.push, (job) => handlePushJob(job.data), 8);
  for (const [name, w] of [[QUEUE.expire, expiry], [QUEUE.push, push]] as const) {
    w.worker.on("failed", (job, err) => log.warn("job failed", { queue: name, job_id: job?.id ?? null, error_name: err.name }));
  }

  let sweeping: Promise<void> = Promise.resolve();
  const sweep = () => {
    sweeping = runSweeps().catch((err: Error) => log.warn("sweep failed", { error_name: err.name }));
  };
  sweep(); // at start: expire whatever fell due while nothing was running
  const timer = setInterval(sweep, e.MA2H_EXPIRY_SWEEP_MS);
  // §3.1: pending push obligations come from PostgreSQL, at start and every ≤ 10 s.
  const sweepPushes = () =>
    void sweepDueDeliveries(e.MA2H_DELIVERY_SWEEP_MS).catch((err: Error) => log.warn("delivery sweep failed", { error_name: err.name }));
  sweepPushes();
  const pushTimer = setInterval(sweepPushes, e.MA2H_DELIVERY_SWEEP_MS);
  log.info("worker running", { sweep_ms: e.MA2H_EXPIRY_SWEEP_MS, queue_backend: e.REDIS_URL ? "redis" : "postgres" });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("worker stopping", { signal });
    setTimeout(() => process.exit(0), 8000).unref();
    clearInterval(timer);
    clearInterval(pushTimer);
    await Promise.allSettled([expiry.close(), push.close(), sweeping]);
    await Promise.allSettled([closeProducers(), closeRedis(), closeDb()]);
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((err: Error) => {
  log.error("worker failed to start", { error: err });
  process.exit(1);
});

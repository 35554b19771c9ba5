/**
 * The worker process: runs the job handlers (lib/jobs/registry.ts) and the sweeps that make
 * PostgreSQL, not the queue, the source of truth (§3.1). No logic of its own — every handler and
 * sweep calls a lib/ verb.
 */
import { env } from "../lib/env";
import { log } from "../lib/log";
import { closeDb } from "../lib/db";
import { closeRedis } from "../lib/redis";
import { closeProducers } from "../lib/queue/producer";
import { makeWorker } from "../lib/queue/queues";
import { JOBS } from "../lib/jobs/registry";
import { sweeps } from "../lib/jobs/sweeps";
import { startSweepTimer } from "../lib/jobs/sweep-timer";
import { ensureSigningKey } from "../lib/keys/signing-keys";
import { startJobWakes } from "../lib/jobs/wake";
import { notificationListener } from "../lib/pubsub/listener";

async function main(): Promise<void> {
  const e = env();
  await ensureSigningKey();
  const workers = JOBS.map((job) => {
    const w = makeWorker(job.contract.queue, (j) => job.handle(j.data), job.concurrency);
    w.worker.on("failed", (j, err) =>
      log.warn("job failed", { queue: job.contract.queue, job_id: j?.id ?? null, error_name: err.name }),
    );
    return w;
  });

  const wakes = await startJobWakes();
  const timer = startSweepTimer(sweeps(e));
  log.info("worker running", { sweep_ms: e.MA2H_EXPIRY_SWEEP_MS, queue_backend: e.REDIS_URL ? "redis" : "postgres" });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("worker stopping", { signal });
    setTimeout(() => process.exit(0), 8000).unref();
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

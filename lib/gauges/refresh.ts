/**
 * The scrape-time gauges (lib/metrics/registry.ts), read from domain state just before each
 * exposition rather than kept up to date on the hot path. A source that fails (the database or the
 * queue store down) is reported as `ma2h_metrics_source_up{source} 0` and its gauges keep their last
 * value; the scrape itself still answers, so the failure is visible.
 *
 * - the web: this process's parked long-polls and drains, inbox streams and pool; and the Hub-wide
 *   open items, expiry lag and queues (every web process reports the same Hub-wide values: alert on
 *   their max, docs/DEPLOYMENT.md);
 * - the worker: its pool (its push attempts and expiries are counted as they happen).
 */
import { clock } from "../clock";
import { poolStats } from "../db";
import { mailboxStreamCount } from "../mailbox/stream";
import { inboxStreamCount } from "../inbox/events";
import { metrics } from "../metrics/registry";
import { openItemStats } from "../messages/stats";
import { terminalWaiters } from "../messages/waiters";
import { queueStats } from "../queue/stats";

async function source(name: string, read: () => Promise<void> | void): Promise<void> {
  const up = metrics().sourceUp;
  try {
    await read();
    up.set({ source: name }, 1);
  } catch {
    up.set({ source: name }, 0);
  }
}

function readPool(): void {
  const pool = poolStats();
  const m = metrics().dbPool;
  const total = pool?.total ?? 0;
  const idle = pool?.idle ?? 0;
  m.set({ state: "in_use" }, total - idle);
  m.set({ state: "idle" }, idle);
  m.set({ state: "waiting" }, pool?.waiting ?? 0);
}

export async function refreshWebGauges(): Promise<void> {
  const m = metrics();
  const now = clock.now();
  const parked = terminalWaiters().counts();
  m.parked.set({ kind: "long_poll" }, parked.longPolls);
  // A held mailbox stream waits on its mailbox like a parked drain: counted once, as a stream.
  const streams = mailboxStreamCount();
  m.parked.set({ kind: "drain" }, Math.max(0, parked.drains - streams));
  m.parked.set({ kind: "mailbox_stream" }, streams);
  m.sseConnections.set(inboxStreamCount());
  readPool();
  await Promise.all([
    source("database", async () => {
      const stats = await openItemStats(now);
      m.openItems.set(stats.open);
      m.expiryLag.set(stats.expiryLagSeconds);
    }),
    source("queues", async () => {
      for (const q of await queueStats(now)) {
        for (const [state, n] of Object.entries(q.counts)) m.queueJobs.set({ queue: q.queue, state }, n);
        m.queueLag.set({ queue: q.queue }, q.lagSeconds);
      }
    }),
  ]);
}

export async function refreshWorkerGauges(): Promise<void> {
  readPool();
}

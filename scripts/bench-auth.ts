/**
 * `npm run bench:auth`: what authenticating one request costs in-process, with the credential
 * cache off (MA2H_AUTH_CACHE_TTL_MS=0: every call reads PostgreSQL, as before the cache) and on (the
 * default 5 s). On a fresh test database: one agent key and one PAT; `authenticate()` is called
 * ROUNDS times in sequence for each, after a warm-up, and p50/p99/mean per call are printed. Figures
 * are printed, never asserted. BENCH_ROUNDS sets the rounds.
 */
import { performance } from "node:perf_hooks";
import { resetEnvCache } from "../lib/env";
import { forgetProcessWide } from "../lib/process-wide";
import { authenticate } from "../lib/principals/authenticate";
import { credentialCache } from "../lib/principals/credential-cache";
import { notificationListener } from "../lib/pubsub/listener";
import { createTestDatabase } from "../test/support/database";
import { provisionAccount, releaseDatabase, useDatabase } from "../test/support/provision";
import { machine, percentile } from "./bench/lib";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5000);
const WARMUP = 200;

async function time(label: string, headers: Headers): Promise<void> {
  for (let i = 0; i < WARMUP; i++) await authenticate(headers);
  const samples: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    await authenticate(headers);
    samples.push(performance.now() - t);
  }
  const mean = (performance.now() - t0) / ROUNDS;
  const us = (ms: number) => `${(ms * 1000).toFixed(1).padStart(8)} µs`;
  console.log(
    `${label.padEnd(34)} p50 ${us(percentile(samples, 50))}   p99 ${us(percentile(samples, 99))}   mean ${us(mean)}`,
  );
}

/** The process's cache made anew under `ttlMs` (it reads its settings once, when made). */
async function cacheWith(ttlMs: number): Promise<void> {
  process.env.MA2H_AUTH_CACHE_TTL_MS = String(ttlMs);
  resetEnvCache();
  forgetProcessWide("ma2h.credential-cache", credentialCache());
  credentialCache();
  // On: the first lookup subscribes; wait for the LISTEN connection so the figures are of hits.
  if (ttlMs > 0) await notificationListener().ready();
}

async function main(): Promise<void> {
  console.log(`bench:auth — ${machine()}, ${ROUNDS} sequential calls each`);
  const database = await createTestDatabase();
  await useDatabase(database.url);
  try {
    const acme = await provisionAccount("acme", ["bench/agent"], [{ handle: "ops", role: "admin" }]);
    const key = new Headers({ authorization: `Bearer ${acme.keys["bench/agent"]}` });
    const pat = new Headers({ authorization: `Bearer ${acme.tokens.ops}` });
    await cacheWith(0);
    await time("agent key, cache off (PostgreSQL)", key);
    await time("PAT, cache off (PostgreSQL)", pat);
    await cacheWith(5000);
    await authenticate(key); // subscribes the cache
    await notificationListener().ready();
    await time("agent key, cache on", key);
    await time("PAT, cache on", pat);
  } finally {
    await notificationListener().close();
    await releaseDatabase();
    await database.drop();
  }
}

main().catch((err: Error) => {
  console.error(err);
  process.exit(1);
});

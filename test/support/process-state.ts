/**
 * A fresh process state for each test file, without a fresh module graph. The `process` and `db`
 * tiers run with `isolate: false` (vitest.config.ts): a worker thread imports lib/ once and runs file
 * after file, which saves each file its own import of lib/, Prisma and Next's pieces. What a file
 * must not inherit from the previous one is then reset here, before and after each file:
 * - lib/'s state: by the module-state rule (test/module-state.test.ts) every mutable value of lib/
 *   lives on `globalThis` under a `Symbol.for("ma2h.…")` name — so dropping those names leaves lib/
 *   as freshly imported (the clock, the caches, the singletons);
 * - what holds a connection (the database pool, the LISTEN connection, queue producers, Redis) is
 *   closed first, so nothing of a finished file reconnects to its dropped database meanwhile;
 * - `process.env` (a worker thread's own copy), as it was when the file started.
 */
import { afterAll, beforeAll } from "vitest";
import { closeDb } from "../../lib/db";
import { notificationListener } from "../../lib/pubsub/listener";
import { closeProducers } from "../../lib/queue/producer";
import { closeRedis } from "../../lib/redis";

/** Closes lib/'s connections and forgets every process-wide value (lib/process-wide.ts). */
export async function resetProcessState(): Promise<void> {
  await Promise.allSettled([closeProducers(), closeRedis(), notificationListener().close(), closeDb()]);
  const slots = globalThis as unknown as Record<symbol, unknown>;
  for (const key of Object.getOwnPropertySymbols(slots)) {
    if (Symbol.keyFor(key)?.startsWith("ma2h.")) delete slots[key];
  }
}

let envAtStart: Record<string, string | undefined> = {};

beforeAll(async () => {
  envAtStart = { ...process.env };
  await resetProcessState();
});

afterAll(async () => {
  await resetProcessState();
  for (const name of Object.keys(process.env)) if (!(name in envAtStart)) delete process.env[name];
  Object.assign(process.env, envAtStart);
});

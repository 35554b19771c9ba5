/**
 * The Prisma client (driver adapter on node-postgres). One per process: it is kept on globalThis
 * because Next bundles and the tsx-loaded server may each evaluate this module.
 */
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client";
import { env } from "./env";

export type Db = PrismaClient;
export type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];

const KEY = Symbol.for("ma2h.db");
type Holder = { [KEY]?: PrismaClient };

export function db(): PrismaClient {
  const g = globalThis as Holder;
  if (!g[KEY]) {
    // No query logging in any mode: queries carry `state` and envelopes (§9.6).
    // Prisma's interactive-transaction defaults (2 s to get a connection, 5 s to finish) turn a burst
    // of submits from one agent — serialised on its inbox-depth advisory lock while holding pooled
    // connections — into 500s (P2028) on a busy box; queue instead, within bounds.
    g[KEY] = new PrismaClient({
      adapter: new PrismaPg({ connectionString: env().DATABASE_URL, max: 10 }),
      transactionOptions: { maxWait: 15_000, timeout: 20_000 },
    });
  }
  return g[KEY];
}

export async function closeDb(): Promise<void> {
  const g = globalThis as Holder;
  const client = g[KEY];
  delete g[KEY];
  await client?.$disconnect();
}

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
    g[KEY] = new PrismaClient({ adapter: new PrismaPg({ connectionString: env().DATABASE_URL, max: 10 }) });
  }
  return g[KEY];
}

export async function closeDb(): Promise<void> {
  const g = globalThis as Holder;
  const client = g[KEY];
  delete g[KEY];
  await client?.$disconnect();
}

/** The optional Redis connection (REDIS_URL). Without it, everything falls back to PostgreSQL. */
import { Redis } from "ioredis";
import { env } from "./env";

const KEY = Symbol.for("ma2h.redis");
type Holder = { [KEY]?: Redis | null };

export function redis(): Redis | null {
  const g = globalThis as Holder;
  if (g[KEY] === undefined) {
    const url = env().REDIS_URL;
    g[KEY] = url ? new Redis(url, { maxRetriesPerRequest: 2, lazyConnect: false, enableOfflineQueue: true }) : null;
  }
  return g[KEY];
}

export async function closeRedis(): Promise<void> {
  const g = globalThis as Holder;
  const client = g[KEY];
  delete g[KEY];
  await client?.quit().catch(() => {});
}

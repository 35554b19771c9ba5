/** The shared store of held-request counts: Redis when configured, else PostgreSQL (store.ts). */
import { redis } from "../redis";
import { pgHeldStore } from "./pg-store";
import { redisHeldStore } from "./redis-store";
import type { HeldStore } from "./store";

export function heldStore(): HeldStore {
  const r = redis();
  return r ? redisHeldStore(r) : pgHeldStore();
}

/**
 * Held-request counts in Redis: one hash per key (`ma2h:held:<key>`), a field per web process with
 * its count, and a lease key per process (`ma2h:held-alive:<process>`). The acquire script drops
 * the fields of processes whose lease lapsed before it sums, so the check and the increment are one
 * atomic step. (The script touches lease keys it is not given: standalone Redis, not Cluster.)
 */
import type { Redis } from "ioredis";
import { type HeldStore, LEASE_MS } from "./store";

const HASH = "ma2h:held:";
const ALIVE = "ma2h:held-alive:";
/** A key's hash outlives its last change by this much; the heartbeat renews it while held. */
const HASH_TTL_MS = 3_600_000;

const ACQUIRE = `
local entries = redis.call('HGETALL', KEYS[1])
local total = 0
for i = 1, #entries, 2 do
  local pid = entries[i]
  if pid == ARGV[1] or redis.call('EXISTS', ARGV[3] .. pid) == 1 then
    total = total + tonumber(entries[i + 1])
  else
    redis.call('HDEL', KEYS[1], pid)
  end
end
if total >= tonumber(ARGV[2]) then return 0 end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1`;

const RELEASE = `
local n = redis.call('HINCRBY', KEYS[1], ARGV[1], -1)
if n <= 0 then redis.call('HDEL', KEYS[1], ARGV[1]) end
return n`;

export function redisHeldStore(r: Redis): HeldStore {
  return {
    async acquire(key, processId, cap) {
      const ok = await r.eval(ACQUIRE, 1, HASH + key, processId, String(cap), ALIVE, String(HASH_TTL_MS));
      return ok === 1;
    },
    async release(key, processId) {
      await r.eval(RELEASE, 1, HASH + key, processId);
    },
    async heartbeat(processId, held) {
      const m = r.multi().set(ALIVE + processId, "1", "PX", LEASE_MS);
      for (const key of held) m.pexpire(HASH + key, HASH_TTL_MS);
      await m.exec();
    },
  };
}

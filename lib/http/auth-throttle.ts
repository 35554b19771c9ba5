/**
 * Failed authentications per source address (docs/security.md "Guessing credentials is throttled"):
 * every `/v1` answer that is `401 unauthenticated` counts one failure for the client's address — as
 * server/forwarded.ts resolved it into `X-Forwarded-For`: a trusted proxy's client, else the TCP
 * peer — in a one-minute window shared by every web process (Redis or PostgreSQL, as the §8.6 submit
 * counters: lib/rate-limit.ts). At `MA2H_AUTH_FAILURES_PER_MINUTE` the address is refused until the
 * window ends: `429 rate_limited` with `Retry-After` (§8.6), whatever it presents, so a refused
 * guess costs no credential lookup. A failure that lands over the budget in another process is
 * answered `429` too, and blocks there.
 *
 * The block itself is kept per process (a map lookup on every request, no store round trip); the
 * count that sets it is shared, so N processes cannot give an address N budgets.
 */
import { clock } from "../clock";
import { env } from "../env";
import { log } from "../log";
import { processWide } from "../process-wide";
import { HubError } from "@ma2h/protocol/errors";
import { queuePrefix } from "../queue/names";
import { countInWindow } from "../rate-limit";

/** Addresses one process remembers as blocked; past it, expired entries go first, then the oldest. */
const MAX_BLOCKED = 10_000;

function refusal(secondsLeft: number): HubError {
  return new HubError("rate_limited", "too many failed authentications from this address; retry later", {
    retryAfterSeconds: secondsLeft,
  });
}

/** The store key: per Hub (the queues' prefix, so Hubs sharing one Redis never share a count) and address. */
function storeKey(source: string): string {
  return `auth-fail:${queuePrefix()}:${source}`;
}

class AuthThrottle {
  /** Blocked address → the instant (ms) its window ends. */
  private readonly blocked = new Map<string, number>();

  /** The refusal for a request from `source`, or null when it may go on. */
  check(source: string): HubError | null {
    const until = this.blocked.get(source);
    if (until === undefined) return null;
    const left = until - clock.now().getTime();
    if (left > 0) return refusal(left / 1000);
    this.blocked.delete(source);
    return null;
  }

  /**
   * Counts a failed authentication from `source`. At the budget the address is blocked here; past
   * it (failures made elsewhere reached it first) this failure's answer becomes the refusal.
   */
  async failed(source: string): Promise<HubError | null> {
    const budget = env().MA2H_AUTH_FAILURES_PER_MINUTE;
    const { count, secondsLeft } = await countInWindow(storeKey(source));
    if (count < budget) return null;
    this.block(source, clock.now().getTime() + secondsLeft * 1000);
    return count > budget ? refusal(secondsLeft) : null;
  }

  private block(source: string, until: number): void {
    if (this.blocked.size >= MAX_BLOCKED) {
      const now = clock.now().getTime();
      for (const [k, t] of this.blocked) if (t <= now) this.blocked.delete(k);
      if (this.blocked.size >= MAX_BLOCKED) this.blocked.delete(this.blocked.keys().next().value as string);
    }
    this.blocked.delete(source); // re-inserted last: the map's order is the eviction order
    this.blocked.set(source, until);
  }
}

function throttle(): AuthThrottle {
  return processWide("ma2h.auth-throttle", () => new AuthThrottle());
}

/** The client address of a request, as the web server resolved it; null in-process (no server). */
export function sourceOf(req: Request): string | null {
  return req.headers.get("x-forwarded-for") || null;
}

/** A request from a blocked address: its refusal; else null. */
export function throttledSource(source: string | null): HubError | null {
  return source === null ? null : throttle().check(source);
}

/**
 * Counts a `401` from `source`; returns the refusal to answer instead when the address is over its
 * budget. A store that cannot count fails open (logged): the throttle must not turn an outage of
 * Redis into refusing every client that mistyped a key.
 */
export async function countFailedAuthentication(source: string | null): Promise<HubError | null> {
  if (source === null) return null;
  try {
    return await throttle().failed(source);
  } catch (err) {
    log.warn("failed-authentication count failed", { error_name: (err as Error).name });
    return null;
  }
}

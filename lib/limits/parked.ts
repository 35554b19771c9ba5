/**
 * Caps on held requests: what one caller may keep parked on the Hub at once, so no credential
 * can exhaust a web process's memory or sockets.
 *
 * - `agent`: parked long-polls (§8.2 `GET /v1/messages/{id}?wait=`) and parked drains (§8.7
 *   `GET /v1/inbox?wait=`) of one agent — every key of it, every web process together; any later
 *   stream of agent entries acquires the same kind. Over `MA2H_MAX_PARKED_PER_AGENT`: `429
 *   rate_limited` (§8.6), advertised as `rate_limit.max_parked_per_agent` (lib/capability.ts).
 * - `person-stream`: the inbox's event streams of one person, all processes together. Over
 *   `MA2H_MAX_STREAMS_PER_PERSON`: `429`.
 * - every kind together, in this process: over `MA2H_MAX_PARKED_PER_PROCESS`, `503 unavailable` —
 *   the process is full, not the caller over a limit.
 * - an account's share of that ceiling: the `agent` slots of all its agents together, in this
 *   process, at most `MA2H_MAX_PARKED_PER_ACCOUNT_PERCENT` of it (`parkedPerAccount`). Over it:
 *   `429 rate_limited` — the account is over its share, so one tenant with many agents cannot
 *   fill a process that serves the others. Counted here only: the ceiling it divides is per process.
 *
 * A refusal is immediate. `acquire` returns the release, which is idempotent: call it on every exit
 * (wake, timeout, abort, error, shutdown — a `finally`). The counts live in the shared store
 * (held-store.ts) as increments and decrements; a failed decrement is retried by this process's
 * heartbeat, which also renews its lease — a process that dies stops counting when the lease lapses.
 */
import { randomUUID } from "node:crypto";
import { heldLimits } from "../env";
import { log } from "../log";
import { processWide } from "../process-wide";
import { HubError } from "@ma2h/protocol/errors";
import { heldStore } from "./held-store";
import { LEASE_MS } from "./store";

export type HeldKind = "agent" | "person-stream";
export type Release = () => void;

/** `Retry-After` of each refusal: a parked request ends within max_wait_seconds, a stream when a tab closes. */
const RETRY_AFTER_SECONDS = { agent: 5, "person-stream": 30, process: 5, account: 5 } as const;

function capOf(kind: HeldKind): number {
  const caps = heldLimits();
  return kind === "agent" ? caps.parkedPerAgent : caps.streamsPerPerson;
}

function refusal(kind: HeldKind, cap: number): HubError {
  const what =
    kind === "agent"
      ? `this agent already has ${cap} parked requests (max_parked_per_agent); let one return first`
      : `this person already has ${cap} open inbox streams; close a tab first`;
  return new HubError("rate_limited", what, { retryAfterSeconds: RETRY_AFTER_SECONDS[kind] });
}

/** Adds `delta` to a count in `map`, forgetting it at zero. */
function bump(map: Map<string, number>, key: string, delta: number): void {
  const n = (map.get(key) ?? 0) + delta;
  if (n > 0) map.set(key, n);
  else map.delete(key);
}

class HeldCounter {
  readonly processId = randomUUID();
  /** Everything this process holds (the process ceiling). */
  private total = 0;
  /** This process's count per store key. */
  private readonly held = new Map<string, number>();
  /** This process's `agent` slots per account (the account's share of the ceiling). */
  private readonly perAccount = new Map<string, number>();
  /** Releases whose store write failed, per key: retried by the heartbeat until they land. */
  private readonly unreleased = new Map<string, number>();
  private started: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;

  /**
   * Holds one slot of `kind` for `key` (an agent's row id, a person's user id), or throws the
   * refusal. `accountId` (the agent's account, for `agent` slots) counts the slot against that
   * account's share of this process's ceiling.
   */
  async acquire(kind: HeldKind, key: string, accountId?: string): Promise<Release> {
    const caps = heldLimits();
    if (this.total >= caps.parkedPerProcess) {
      throw new HubError("unavailable", "this Hub process holds as many requests as it may; retry shortly", {
        retryAfterSeconds: RETRY_AFTER_SECONDS.process,
      });
    }
    if (accountId !== undefined && (this.perAccount.get(accountId) ?? 0) >= caps.parkedPerAccount) {
      throw new HubError(
        "rate_limited",
        `this account's agents already hold ${caps.parkedPerAccount} parked requests on this Hub process (its share); let one return first`,
        { retryAfterSeconds: RETRY_AFTER_SECONDS.account },
      );
    }
    const storeKey = `${kind}:${key}`;
    const cap = capOf(kind);
    // What this process holds is part of the total: at the cap already, refuse without asking the store.
    if ((this.held.get(storeKey) ?? 0) >= cap) throw refusal(kind, cap);
    // Reserved before any await, so concurrent acquires cannot pass the ceiling or the share.
    this.total += 1;
    if (accountId !== undefined) bump(this.perAccount, accountId, 1);
    let ok = false;
    try {
      await this.start();
      ok = await heldStore().acquire(storeKey, this.processId, cap);
    } finally {
      if (!ok) {
        this.total -= 1;
        if (accountId !== undefined) bump(this.perAccount, accountId, -1);
      }
    }
    if (!ok) throw refusal(kind, cap);
    bump(this.held, storeKey, 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total -= 1;
      if (accountId !== undefined) bump(this.perAccount, accountId, -1);
      bump(this.held, storeKey, -1);
      this.release(storeKey);
    };
  }

  /** Requests this process holds now. */
  get size(): number {
    return this.total;
  }

  private release(storeKey: string): void {
    heldStore()
      .release(storeKey, this.processId)
      .catch((err: Error) => {
        this.unreleased.set(storeKey, (this.unreleased.get(storeKey) ?? 0) + 1);
        log.warn("held-request release failed; the heartbeat retries it", { error_name: err.name });
      });
  }

  /** The first acquire waits for the lease; then a beat every third of it keeps it alive. */
  private start(): Promise<void> {
    this.started ??= this.beat().then(
      () => {
        this.timer = setInterval(() => void this.beat().catch(() => {}), LEASE_MS / 3);
        this.timer.unref();
      },
      (err: unknown) => {
        this.started = null;
        throw err;
      },
    );
    return this.started;
  }

  private async beat(): Promise<void> {
    try {
      await heldStore().heartbeat(this.processId, [...this.held.keys()]);
    } catch (err) {
      log.warn("held-request heartbeat failed", { error_name: (err as Error).name });
      throw err;
    }
    const retry = [...this.unreleased];
    this.unreleased.clear();
    for (const [storeKey, n] of retry) for (let i = 0; i < n; i++) this.release(storeKey);
  }
}

/** The process-wide counter (lib/process-wide.ts): one per process, whichever bundle asks. */
export function heldCounter(): HeldCounter {
  return processWide("ma2h.held-requests", () => new HeldCounter());
}

/** Holds one slot of `kind` for `key`; the returned release is idempotent. Throws 429 / 503 (§8.5). */
export function acquireHeld(kind: "person-stream", key: string): Promise<Release> {
  return heldCounter().acquire(kind, key);
}

/** Holds one parked slot of the agent, counted against its account's share too. Throws 429 / 503. */
export function acquireAgentSlot(principal: { agentRowId: string; accountId: string }): Promise<Release> {
  return heldCounter().acquire("agent", principal.agentRowId, principal.accountId);
}

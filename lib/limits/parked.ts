/**
 * Caps on held requests (#18): what one caller may keep parked on the Hub at once, so no credential
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
import { HubError } from "../protocol/errors";
import { heldStore } from "./held-store";
import { LEASE_MS } from "./store";

export type HeldKind = "agent" | "person-stream";
export type Release = () => void;

/** `Retry-After` of each refusal: a parked request ends within max_wait_seconds, a stream when a tab closes. */
const RETRY_AFTER_SECONDS = { agent: 5, "person-stream": 30, process: 5 } as const;

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

class HeldCounter {
  readonly processId = randomUUID();
  /** Everything this process holds (the process ceiling). */
  private total = 0;
  /** This process's count per store key. */
  private readonly held = new Map<string, number>();
  /** Releases whose store write failed, per key: retried by the heartbeat until they land. */
  private readonly unreleased = new Map<string, number>();
  private started: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;

  /** Holds one slot of `kind` for `key` (an agent's row id, a person's user id), or throws the refusal. */
  async acquire(kind: HeldKind, key: string): Promise<Release> {
    const ceiling = heldLimits().parkedPerProcess;
    if (this.total >= ceiling) {
      throw new HubError("unavailable", "this Hub process holds as many requests as it may; retry shortly", {
        retryAfterSeconds: RETRY_AFTER_SECONDS.process,
      });
    }
    const storeKey = `${kind}:${key}`;
    const cap = capOf(kind);
    // What this process holds is part of the total: at the cap already, refuse without asking the store.
    if ((this.held.get(storeKey) ?? 0) >= cap) throw refusal(kind, cap);
    this.total += 1; // reserved before any await, so concurrent acquires cannot pass the ceiling
    let ok = false;
    try {
      await this.start();
      ok = await heldStore().acquire(storeKey, this.processId, cap);
    } finally {
      if (!ok) this.total -= 1;
    }
    if (!ok) throw refusal(kind, cap);
    this.count(storeKey, 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total -= 1;
      this.count(storeKey, -1);
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

  private count(storeKey: string, delta: number): void {
    const n = (this.held.get(storeKey) ?? 0) + delta;
    if (n > 0) this.held.set(storeKey, n);
    else this.held.delete(storeKey);
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
export function acquireHeld(kind: HeldKind, key: string): Promise<Release> {
  return heldCounter().acquire(kind, key);
}

/**
 * The directive mailbox (§8.7, §13.4): drain → verify (§9.7 signature, window, `jti`, addressee,
 * shape) → reserve the id → act → ack with the handler's note (§14.3). At-least-once delivery
 * becomes at-most-once action: an id is reserved in the dedup store before the handler runs, so a
 * redelivery (visibility timeout, a second consumer) is never handed over twice; a handler that
 * throws releases its reservation and leaves the directive un-acked, so it is redelivered.
 *
 * `directivesFrom` is the agent's own §13.5 policy for who may instruct it (directive-senders.ts): a
 * directive from anyone else is reported to `onRejected` and not acked either.
 *
 * Rejected (unverified) entries are reported to `onRejected` and NOT acked: the signature is what
 * makes a directive ours to consume, so an unverifiable one is not ours to consume either; a
 * transient cause (clock skew, a key rotation not yet fetched) heals on redelivery, and until then
 * the person sees it un-acknowledged, which is the truth (docs/decisions/agent-sdk.md).
 */
import type { Directive } from "@ma2h/protocol/directive";
import { checkDirectiveSenders, type DirectiveSenders, directiveSenderAccepted } from "./directive-senders";
import { HubKeys } from "./keys";
import { SenderNotAcceptedError } from "./session-inbox";
import { type DedupStore, MemoryDedupStore, MemoryReplayStore, type ReplayStore } from "./stores";
import { abortReason, backoffDelay, isTransient, sleep, type Transport } from "./transport";
import { VerificationError } from "./verification";
import { verifyDirective } from "./verify-directive";

export type { Directive };
/** A drained directive that passed §9.7/§13.4 verification: shape-checked, unknown fields dropped. */
export type VerifiedDirective = Directive;

/** The Hub's ack note bound (§14.1 "a short note"; ACK_NOTE_MAX_CHARS on the Hub). */
const NOTE_MAX_CHARS = 2000;
/** §8.7 long-poll ceiling. */
const DRAIN_WAIT_SECONDS = 60;

export interface RawEntry {
  directive: unknown;
  signature: string;
}

export type DirectiveHandler = (
  directive: Directive,
  context: { signal?: AbortSignal },
) => // biome-ignore lint/suspicious/noConfusingVoidType: a handler may return nothing (the contract's type)
Promise<string | void> | string | void;

export interface DrainOptions {
  max?: number;
  wait?: number;
  signal?: AbortSignal;
  replayStore?: ReplayStore;
  /** §13.5: who may instruct this agent (directive-senders.ts); absent, any verified sender. */
  directivesFrom?: DirectiveSenders;
  /** An entry refused by verification or by `directivesFrom`; it stays un-acked. */
  onRejected?(error: VerificationError | SenderNotAcceptedError, raw: unknown): void;
}

export interface ListenOptions {
  signal?: AbortSignal;
  replayStore?: ReplayStore;
  dedupStore?: DedupStore;
  /** §13.5: who may instruct this agent (directive-senders.ts); absent, any verified sender. */
  directivesFrom?: DirectiveSenders;
  /** An entry refused by verification or by `directivesFrom`; it stays un-acked. */
  onRejected?(error: VerificationError | SenderNotAcceptedError, raw: unknown): void;
  /** A handler that threw (the directive stays un-acked), or a failed verification fetch. */
  onError?(error: unknown, directive: Directive | null): void;
}

/** `client.directives`: the agent's §8.7 mailbox. */
export interface DirectiveMailbox {
  /** One verified drain (§8.7, §9.7); each directive stays un-acked until `ack`. */
  drain(o?: DrainOptions): Promise<VerifiedDirective[]>;
  /** §8.7 `POST /v1/inbox/ack`: consume directives by id, with an optional note the person reads. */
  ack(ids: string[], o?: { note?: string; signal?: AbortSignal }): Promise<{ acked: number }>;
  /** The §13.4 loop: drain → verify → hand each to `handler` once → ack with its note. */
  listen(handler: DirectiveHandler, o?: ListenOptions): Promise<void>;
  /** @deprecated Use `ack(ids, { note })`. */
  ackIds(ids: string[], note?: string): Promise<{ acked: number }>;
}

/** The dedup-store key marking a directive whose handler finished (its ack may still be owed). */
const doneKey = (id: string) => `directive-done:${id}`;

function clampNote(note: unknown): string | undefined {
  if (typeof note !== "string" || note === "") return undefined;
  const chars = [...note];
  return chars.length > NOTE_MAX_CHARS ? chars.slice(0, NOTE_MAX_CHARS).join("") : note;
}

export class HubDirectiveMailbox implements DirectiveMailbox {
  readonly #transport: Transport;
  readonly #agentId: string;
  readonly #hubKeys: HubKeys;
  readonly #replayStore: ReplayStore = new MemoryReplayStore();
  readonly #dedupStore: DedupStore = new MemoryDedupStore();

  constructor(o: { transport: Transport; agentId: string; fetch?: typeof fetch; hubKeys?: HubKeys }) {
    this.#transport = o.transport;
    this.#agentId = o.agentId;
    this.#hubKeys = o.hubKeys ?? new HubKeys(o.transport.baseUrl, o.fetch ? { fetch: o.fetch } : undefined);
  }

  /** `GET /v1/inbox`: the raw entries (each now in flight for the visibility timeout). */
  async drainRaw(o: { max?: number; wait?: number; signal?: AbortSignal } = {}): Promise<RawEntry[]> {
    const reply = await this.#transport.request("GET", "/v1/inbox", {
      touchpoint: "inbox",
      query: { max: o.max, wait: o.wait },
      signal: o.signal,
    });
    const messages = (reply.body as { messages?: unknown } | null)?.messages;
    return Array.isArray(messages) ? (messages as RawEntry[]) : [];
  }

  #verify(entry: RawEntry, replayStore: ReplayStore): Promise<Directive> {
    return verifyDirective(entry, { agentId: this.#agentId, hubKeys: this.#hubKeys, replayStore });
  }

  /** Drains and verifies; rejected entries go to `onRejected` and are left un-acked. */
  async drain(o: DrainOptions = {}): Promise<VerifiedDirective[]> {
    const senders = checkDirectiveSenders(o.directivesFrom);
    const out: VerifiedDirective[] = [];
    for (const entry of await this.drainRaw(o)) {
      let directive: Directive;
      try {
        directive = await this.#verify(entry, o.replayStore ?? this.#replayStore);
      } catch (err) {
        if (!(err instanceof VerificationError)) throw err;
        o.onRejected?.(err, entry);
        continue;
      }
      if (directiveSenderAccepted(directive.from, senders)) out.push(directive);
      else o.onRejected?.(new SenderNotAcceptedError(directive.from, directive.id, "directive"), entry);
    }
    return out;
  }

  /** `POST /v1/inbox/ack` (§8.7, §14.3): consume = acknowledge, with an optional note. */
  /** @deprecated Use `ack(ids, { note })`. */
  ackIds(ids: string[], note?: string, o: { signal?: AbortSignal } = {}): Promise<{ acked: number }> {
    return this.ack(ids, { note, signal: o.signal });
  }

  async ack(ids: string[], o: { note?: string; signal?: AbortSignal } = {}): Promise<{ acked: number }> {
    const body: { ids: string[]; note?: string } = { ids };
    const clamped = clampNote(o.note);
    if (clamped !== undefined) body.note = clamped;
    const reply = await this.#transport.request("POST", "/v1/inbox/ack", {
      touchpoint: "inbox",
      body: JSON.stringify(body),
      signal: o.signal,
    });
    return reply.body as { acked: number };
  }

  /**
   * Drains with `?wait=60` until `signal` aborts (then resolves): each verified directive is
   * handed to `handler` at most once, and acked with the string it returns as the note.
   */
  async listen(handler: DirectiveHandler, o: ListenOptions = {}): Promise<void> {
    const { signal } = o;
    checkDirectiveSenders(o.directivesFrom);
    const replayStore = o.replayStore ?? this.#replayStore;
    const dedup = o.dedupStore ?? this.#dedupStore;
    // Our own finished directives whose ack did not get through: retried before the next drain.
    const owed = new Map<string, string | undefined>();
    const { baseDelayMs, maxDelayMs } = this.#transport.retry;
    let failures = 0;
    while (!signal?.aborted) {
      try {
        for (const [id, note] of owed) {
          await this.ack([id], { note, signal });
          owed.delete(id);
        }
        const entries = await this.drainRaw({ wait: DRAIN_WAIT_SECONDS, signal });
        failures = 0;
        for (const entry of entries) {
          // An entry left unhandled on abort is redelivered after the visibility timeout.
          if (signal?.aborted) break;
          await this.#handle(entry, handler, { ...o, replayStore, dedup, owed });
        }
      } catch (err) {
        if (signal?.aborted) return;
        if (!isTransient(err)) throw err;
        try {
          await sleep(backoffDelay(failures++, Math.max(baseDelayMs, 500), maxDelayMs), signal);
        } catch {
          return; // aborted while backing off
        }
      }
    }
  }

  async #handle(
    entry: RawEntry,
    handler: DirectiveHandler,
    o: ListenOptions & { replayStore: ReplayStore; dedup: DedupStore; owed: Map<string, string | undefined> },
  ): Promise<void> {
    let directive: Directive;
    try {
      directive = await this.#verify(entry, o.replayStore);
    } catch (err) {
      if (err instanceof VerificationError) o.onRejected?.(err, entry);
      else o.onError?.(err, null); // e.g. the key fetch failed: the entry is redelivered
      return;
    }
    if (!directiveSenderAccepted(directive.from, o.directivesFrom)) {
      o.onRejected?.(new SenderNotAcceptedError(directive.from, directive.id, "directive"), entry);
      return;
    }
    const { id } = directive;
    // §13.4 step 3: reserve before the work, so an overlapping delivery is not acted on twice.
    if (!(await o.dedup.reserve(id))) {
      // Finished earlier (by us before a restart, or by another consumer) but never acked: the
      // ack is owed, so the person sees it acknowledged and the Hub stops redelivering it.
      if (await o.dedup.has(doneKey(id))) await this.ack([id], { signal: o.signal }).catch(() => {});
      return;
    }
    let note: string | undefined;
    try {
      const result = await handler(directive, { signal: o.signal });
      note = clampNote(result);
    } catch (err) {
      await o.dedup.release(id); // not acted on: let the redelivery be
      o.onError?.(err, directive);
      return;
    }
    await o.dedup.reserve(doneKey(id));
    try {
      await this.ack([id], { note, signal: o.signal });
    } catch (err) {
      if (o.signal?.aborted) throw abortReason(o.signal);
      o.owed.set(id, note);
      if (!isTransient(err)) throw err;
    }
  }
}

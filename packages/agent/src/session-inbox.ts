/**
 * The session-scoped mailbox (§8.7.1, §16): register and close a session, drain with `?session=`
 * and hand back only verified items, ack by ack key. Every item is verified before it is returned
 * (verify-entry.ts: §9.7 / §9.8 signature, the §13.4 session-qualified addressee check, the shape,
 * the `jti` store), then deduplicated — a directive or message by its `id`, a response by
 * `(in_reply_to, resolution_id)` (the same §6 key the push receivers use, so an answer that comes by
 * push and by drain is acted on once), a receipt by `(in_reply_to, event)` — by reserving the key in
 * the dedup store before it is handed out (§13.4 step 3).
 *
 * Authorization (§13.4 v0.5 amendment): before an agent acts on an addressed `ask`/`task`, it MUST
 * evaluate an explicit, deployment-declared policy for which `from` principals may ask/task it —
 * never an implicit default. So the drain takes a REQUIRED `acceptFrom`: a list of addresses
 * (`agent:<id>` accepts any session of that agent, `agent:<id>#sess_…` only that session; `[]`
 * accepts none), or the literal `"any-same-account"` (the Hub only delivers same-account mail, §4).
 * An ask/task from anyone else is not handed out: it is reported to `onRejected` as a
 * SenderNotAcceptedError and left un-acked (the Hub redelivers it after the visibility window, and
 * bounces it when the session ends; ack its `ackKey` to drop it instead). Notify entries carry no
 * ask and are handed out to every verified sender.
 *
 * Refused (unverified) items are likewise reported and never acked: the signature is what makes an
 * entry ours to consume (the directive mailbox's rule, directives.ts).
 */
import { ADDRESS_PATTERN } from "@ma2h/protocol/wire";
import { type SessionResource, sessionEnvelopeSchema } from "@ma2h/protocol/session";
import { checkDirectiveSenders, type DirectiveSenders, directiveSenderAccepted } from "./directive-senders";
import { Ma2hError } from "./errors";
import type { HubKeys } from "./keys";
import { type DedupStore, MemoryDedupStore, MemoryReplayStore, type ReplayStore } from "./stores";
import type { Transport } from "./transport";
import { VerificationError } from "./verification";
import { type VerifiedEntry, verifyEntry } from "./verify-entry";

export type { SessionResource };

/** §13.4 v0.5: who may ask/task this agent — a list of addresses, or every same-account principal. */
export type AcceptFrom = readonly string[] | "any-same-account";

/** §16.1 `POST /v1/sessions` body (the requested `ttl_seconds` is clamped by the Hub). */
export interface RegisterSessionInput {
  ttl_seconds?: number;
  label?: string;
  run_id?: string;
  kind?: string;
  project?: string;
  labels?: Record<string, string>;
}

/**
 * A verified entry from a sender the policy does not list: an addressed ask/task outside
 * `acceptFrom` (§13.4), or a directive outside `directivesFrom` (§13.5) — not ours to act on.
 */
export class SenderNotAcceptedError extends Ma2hError {
  readonly reason = "sender_not_accepted" as const;
  /** The Hub-attested sender. */
  readonly from: string;
  /** The entry's ack key (a directive's id), to drop it with ackEntries / ackIds. */
  readonly ackKey: string;
  constructor(from: string, ackKey: string, what: "ask/task" | "directive" = "ask/task") {
    super(
      `${from} is not in ${what === "directive" ? "directivesFrom" : "acceptFrom"}: its ${what} ${ackKey} is not handed out (${what === "directive" ? "§13.5" : "§13.4"})`,
      { status: 0, code: "sender_not_accepted" },
    );
    this.from = from;
    this.ackKey = ackKey;
  }
}

export interface SessionDrainOptions {
  /** REQUIRED (§13.4 v0.5): the explicit policy for which senders may ask/task this agent. */
  acceptFrom: AcceptFrom;
  /** §13.5: who may instruct this agent by directive (directives.ts); absent, any verified sender. */
  directivesFrom?: DirectiveSenders;
  /** At most this many items (the Hub's bound applies). */
  max?: number;
  /** Long-poll seconds (§8.7, at most 60). */
  wait?: number;
  signal?: AbortSignal;
  /** Default: the client's (`dedupStore` option, else one in memory). */
  dedupStore?: DedupStore;
  /** Default: the client's (`replayStore` option, else one in memory). */
  replayStore?: ReplayStore;
  /** An item refused by verification or by `acceptFrom`; it stays un-acked. */
  onRejected?(error: VerificationError | SenderNotAcceptedError, raw: unknown): void;
  /** A redelivery of an item handed out before (and not acked); skipped. */
  onDuplicate?(entry: VerifiedEntry): void;
}

/** The dedup-store key marking an entry whose ack went through. */
const doneKey = (dedupKey: string) => `entry-done:${dedupKey}`;

/** The Hub's ack note bound (§14.1). */
const NOTE_MAX_CHARS = 2000;

function checkPolicy(acceptFrom: AcceptFrom | undefined): AcceptFrom {
  if (acceptFrom === "any-same-account") return acceptFrom;
  if (!Array.isArray(acceptFrom))
    throw new TypeError(
      'acceptFrom is required (§13.4): a list of agent:<id>[#sess_…] addresses, [] for none, or "any-same-account"',
    );
  for (const a of acceptFrom)
    if (typeof a !== "string" || !ADDRESS_PATTERN.test(a))
      throw new TypeError(`acceptFrom entry ${JSON.stringify(a)} is not agent:<id> or agent:<id>#sess_…`);
  return acceptFrom;
}

/** True when `from` (attested, maybe session-qualified) is one `acceptFrom` lets ask/task us. */
export function senderAccepted(from: string, acceptFrom: AcceptFrom): boolean {
  if (acceptFrom === "any-same-account") return true;
  const principal = from.split("#", 1)[0] as string;
  return acceptFrom.some((a) => a === from || (!a.includes("#") && a === principal));
}

export class SessionInbox {
  readonly #transport: Transport;
  readonly #agentId: string;
  readonly #hubKeys: HubKeys;
  readonly #dedup: DedupStore;
  readonly #replay: ReplayStore;
  /** ack key → dedup key of what this process handed out, so a bare-key ack marks it done. */
  readonly #handedOut = new Map<string, string>();

  constructor(o: {
    transport: Transport;
    agentId: string;
    hubKeys: HubKeys;
    dedupStore?: DedupStore;
    replayStore?: ReplayStore;
  }) {
    this.#transport = o.transport;
    this.#agentId = o.agentId;
    this.#hubKeys = o.hubKeys;
    this.#dedup = o.dedupStore ?? new MemoryDedupStore();
    this.#replay = o.replayStore ?? new MemoryReplayStore();
  }

  /** §16.1 `POST /v1/sessions` → the session (its `id` is the `sess_…` to present). */
  async register(input: RegisterSessionInput = {}, o: { signal?: AbortSignal } = {}): Promise<SessionResource> {
    const reply = await this.#transport.request("POST", "/v1/sessions", {
      touchpoint: "other",
      body: JSON.stringify(input),
      signal: o.signal,
    });
    return sessionOf(reply.status, reply.body);
  }

  /** §16.3 `DELETE /v1/sessions/{id}` (idempotent) → the session as closed. */
  async close(sessionId: string, o: { signal?: AbortSignal } = {}): Promise<SessionResource> {
    const reply = await this.#transport.request("DELETE", `/v1/sessions/${encodeURIComponent(sessionId)}`, {
      touchpoint: "other",
      signal: o.signal,
    });
    return sessionOf(reply.status, reply.body);
  }

  /** `GET /v1/inbox?session=`: the raw items (each now claimed for the visibility window). */
  async drainRaw(sessionId: string, o: { max?: number; wait?: number; signal?: AbortSignal } = {}): Promise<unknown[]> {
    const reply = await this.#transport.request("GET", "/v1/inbox", {
      touchpoint: "inbox",
      query: { session: sessionId, max: o.max, wait: o.wait },
      signal: o.signal,
    });
    const messages = (reply.body as { messages?: unknown } | null)?.messages;
    return Array.isArray(messages) ? messages : [];
  }

  /** Drains, verifies every item, applies `acceptFrom` to ask/task, dedups; returns what is ours to use. */
  async drain(sessionId: string, o: SessionDrainOptions): Promise<VerifiedEntry[]> {
    const acceptFrom = checkPolicy(o?.acceptFrom);
    const directivesFrom = checkDirectiveSenders(o.directivesFrom);
    const dedup = o.dedupStore ?? this.#dedup;
    const replayStore = o.replayStore ?? this.#replay;
    const out: VerifiedEntry[] = [];
    for (const raw of await this.drainRaw(sessionId, o)) {
      let entry: VerifiedEntry;
      try {
        entry = await verifyEntry(raw, {
          agentId: this.#agentId,
          session: sessionId,
          hubKeys: this.#hubKeys,
          replayStore,
        });
      } catch (err) {
        if (!(err instanceof VerificationError)) throw err; // e.g. the keys could not be fetched
        o.onRejected?.(err, raw);
        continue;
      }
      if (
        entry.kind === "message" &&
        entry.message.type !== "notify" &&
        !senderAccepted(entry.message.from, acceptFrom)
      ) {
        o.onRejected?.(new SenderNotAcceptedError(entry.message.from, entry.ackKey), raw);
        continue;
      }
      if (entry.kind === "directive" && !directiveSenderAccepted(entry.directive.from, directivesFrom)) {
        o.onRejected?.(new SenderNotAcceptedError(entry.directive.from, entry.ackKey, "directive"), raw);
        continue;
      }
      // §13.4 step 3: reserve before handing out, so a redelivery is not acted on twice.
      if (!(await dedup.reserve(entry.dedupKey))) {
        // Acked before but the ack was lost (or it came again): owe the ack, not the work.
        if (await dedup.has(doneKey(entry.dedupKey)))
          await this.ack(sessionId, [entry.ackKey], { signal: o.signal }).catch(() => {});
        o.onDuplicate?.(entry);
        continue;
      }
      this.#handedOut.set(entry.ackKey, entry.dedupKey);
      out.push(entry);
    }
    return out;
  }

  /**
   * `POST /v1/inbox/ack?session=` (§8.7.1): consume entries by ack key (or the entries themselves),
   * after they were durably processed (§13.4 step 4). Entries handed out by this client are marked
   * done in the dedup store, so a redelivery after a lost ack is acked again, not handed out.
   */
  async ack(
    sessionId: string,
    entries: ReadonlyArray<string | VerifiedEntry>,
    o: { note?: string; signal?: AbortSignal; dedupStore?: DedupStore } = {},
  ): Promise<{ acked: number }> {
    const keys = entries.map((e) => (typeof e === "string" ? e : e.ackKey));
    const body: { ids: string[]; note?: string } = { ids: keys };
    if (typeof o.note === "string" && o.note !== "") body.note = [...o.note].slice(0, NOTE_MAX_CHARS).join("");
    const reply = await this.#transport.request("POST", "/v1/inbox/ack", {
      touchpoint: "inbox",
      query: { session: sessionId },
      body: JSON.stringify(body),
      signal: o.signal,
    });
    const dedup = o.dedupStore ?? this.#dedup;
    for (const e of entries) {
      const dedupKey = typeof e === "string" ? this.#handedOut.get(e) : e.dedupKey;
      if (dedupKey !== undefined) await dedup.reserve(doneKey(dedupKey));
      this.#handedOut.delete(typeof e === "string" ? e : e.ackKey);
    }
    return reply.body as { acked: number };
  }

  /** Undoes the reservation of an entry whose processing failed, so its redelivery is handed out. */
  async release(entry: VerifiedEntry, o: { dedupStore?: DedupStore } = {}): Promise<void> {
    await (o.dedupStore ?? this.#dedup).release(entry.dedupKey);
    this.#handedOut.delete(entry.ackKey);
  }
}

function sessionOf(status: number, body: unknown): SessionResource {
  const parsed = sessionEnvelopeSchema.safeParse(body);
  if (!parsed.success)
    throw new Ma2hError("the Hub's answer is not a session envelope (§16.1)", {
      status,
      code: "invalid_session",
      body,
    });
  return parsed.data.session;
}

/**
 * `Ma2hClient`: the agent's side of the §8 HTTP binding — discovery (§8.0), submit (§8.1) with a
 * journal of the exact bytes, pull and long-poll (§8.2), cancel (§8.4), resolve as an agent resolver
 * (§8.8), the response-leg ack (§14.3), the directive mailbox (§8.7), and the inter-agent leg (v0.5):
 * addressed submits with the sender's duties (§8.0 feature detection, the §8.1 misroute detector),
 * sessions (§16) and the verified session drain (§8.7.1, session-inbox.ts). No presence call:
 * presence is for the owning humans (§15.3).
 */
import { randomUUID } from "node:crypto";
import type { Ack } from "@ma2h/protocol/ack";
import { type Capability, capabilitySchema } from "@ma2h/protocol/capability";
import type { GetMessage } from "@ma2h/protocol/get-message";
import type { HubResponse } from "@ma2h/protocol/response";
import { type Destination, destinationSchema, type SubmitAck } from "@ma2h/protocol/submit-ack";
import { type DirectiveMailbox, HubDirectiveMailbox } from "./directives";
import {
  type CommonInput,
  type ConfirmInput,
  confirmEnvelope,
  type EnvelopeContext,
  type InputAskInput,
  inputEnvelope,
  type NotifyInput,
  negotiateVersion,
  notifyEnvelope,
  type SelectInput,
  selectEnvelope,
  type TaskInput,
  taskEnvelope,
  validateEnvelope,
} from "./envelopes";
import { AlreadyTerminalError, CapabilityError, JournalError, localError, Ma2hError, MisrouteError } from "./errors";
import type { SubmitJournal } from "./journal";
import { HubKeys } from "./keys";
import {
  type RegisterSessionInput,
  type SessionDrainOptions,
  SessionInbox,
  type SessionResource,
} from "./session-inbox";
import type { DedupStore, ReplayStore } from "./stores";
import type { VerifiedEntry } from "./verify-entry";
import { type RetryOptions, Transport } from "./transport";
import { type GetOptions, getMessage, type WaitOptions, waitForResponse } from "./wait";
import { parseResolveRequest } from "@ma2h/protocol/resolve-request";
import { isHubError, type ErrorCode } from "@ma2h/protocol/errors";

export type { Ack, Capability, Destination, GetMessage, HubResponse, SubmitAck };
export type { GetOptions, WaitOptions } from "./wait";

export interface Ma2hClientOptions {
  url: string;
  apiKey: string;
  agentId: string;
  /** §4.1 `run_id` (default: a random one per client). */
  runId?: string;
  /** §4.1 `runtime` (default "other"). */
  runtime?: string;
  project?: string;
  fetch?: typeof fetch;
  /** Persists the exact bytes of every submit, so `replay(key)` can recover a lost ack. */
  journal?: SubmitJournal;
  retry?: RetryOptions;
  /**
   * The session drain's at-most-once memory (§13.4 step 3, §6): default one in memory per client;
   * a FileDedupStore keeps it across a restart (share it with a push receiver's, so an answer that
   * comes both ways is acted on once).
   */
  dedupStore?: DedupStore;
  /** The session drain's `jti` cache (§9.8): default one in memory per client. */
  replayStore?: ReplayStore;
}

export interface MessageHandle {
  id: string;
  ack: SubmitAck;
  /** §8.1 the destination's reachability at send time; present exactly when the submit was addressed. */
  destination?: Destination;
  wait(o?: WaitOptions): Promise<HubResponse>;
  cancel(): Promise<{ id: string; status: string }>;
  acknowledge(body?: { note?: string; resolution_id?: string }): Promise<Ack>;
}

export class Ma2hClient {
  readonly url: string;
  readonly agentId: string;
  readonly directives: DirectiveMailbox;
  readonly ask: {
    confirm(i: ConfirmInput): Promise<MessageHandle>;
    select(i: SelectInput): Promise<MessageHandle>;
    input(i: InputAskInput): Promise<MessageHandle>;
  };
  readonly #transport: Transport;
  readonly #agent: EnvelopeContext["agent"];
  readonly #journal: SubmitJournal | undefined;
  readonly #sessions: SessionInbox;
  #capability: Promise<Capability> | null = null;
  #session: string | null = null;

  constructor(o: Ma2hClientOptions) {
    if (!o.url || !o.apiKey || !o.agentId) throw new TypeError("Ma2hClient needs url, apiKey and agentId");
    this.#transport = new Transport({ url: o.url, apiKey: o.apiKey, fetch: o.fetch, retry: o.retry });
    this.url = this.#transport.baseUrl;
    this.agentId = o.agentId;
    this.#agent = { id: o.agentId, run_id: o.runId ?? `run_${randomUUID()}`, runtime: o.runtime ?? "other" };
    if (o.project !== undefined) this.#agent.project = o.project;
    this.#journal = o.journal;
    const hubKeys = new HubKeys(this.#transport.baseUrl, o.fetch ? { fetch: o.fetch } : undefined);
    this.directives = new HubDirectiveMailbox({ transport: this.#transport, agentId: o.agentId, hubKeys });
    this.#sessions = new SessionInbox({
      transport: this.#transport,
      agentId: o.agentId,
      hubKeys,
      dedupStore: o.dedupStore,
      replayStore: o.replayStore,
    });
    this.ask = {
      confirm: async (i) => this.submitEnvelope(confirmEnvelope(await this.#context(), this.#sessioned(i))),
      select: async (i) => this.submitEnvelope(selectEnvelope(await this.#context(), this.#sessioned(i))),
      input: async (i) => this.submitEnvelope(inputEnvelope(await this.#context(), this.#sessioned(i))),
    };
  }

  /** From MA2H_URL, MA2H_API_KEY and MA2H_AGENT_ID (overrides win). */
  static fromEnv(overrides: Partial<Ma2hClientOptions> = {}): Ma2hClient {
    const env = process.env;
    return new Ma2hClient({
      url: overrides.url ?? env.MA2H_URL ?? "",
      apiKey: overrides.apiKey ?? env.MA2H_API_KEY ?? "",
      agentId: overrides.agentId ?? env.MA2H_AGENT_ID ?? "",
      ...overrides,
    });
  }

  /** The §8.0 capability document, fetched once and cached (a failed fetch is retried next call). */
  capability(): Promise<Capability> {
    this.#capability ??= (async () => {
      const reply = await this.#transport.request("GET", "/.well-known/ma2h", { touchpoint: "other", anonymous: true });
      const parsed = capabilitySchema.safeParse(reply.body);
      if (!parsed.success) {
        throw new CapabilityError("the Hub's /.well-known/ma2h is not a valid capability document (§8.0)", {
          status: reply.status,
          code: "invalid_capability",
          body: reply.body,
        });
      }
      negotiateVersion(parsed.data.ma2h_version); // major 0, or a CapabilityError now
      return parsed.data;
    })();
    this.#capability.catch(() => {
      this.#capability = null;
    });
    return this.#capability;
  }

  async #context(): Promise<EnvelopeContext> {
    const cap = await this.capability();
    return { version: negotiateVersion(cap.ma2h_version), agent: { ...this.#agent } };
  }

  /**
   * The session this client holds: the last one `registerSession` returned and `closeSession` has
   * not closed. Its submits name it as `agent.session` (§4.1: a session-registered agent SHOULD), so
   * their Responses land in its drain and their `from` is session-qualified; null when none.
   */
  get session(): string | null {
    return this.#session;
  }

  /** The input with `session` defaulted to the held one (an explicit string or null wins). */
  #sessioned<T extends CommonInput>(i: T): T {
    return i.session !== undefined || this.#session === null ? i : { ...i, session: this.#session };
  }

  notify(i: NotifyInput): Promise<SubmitAck> {
    return this.#context().then(
      async (ctx) => (await this.submitEnvelope(notifyEnvelope(ctx, this.#sessioned(i)))).ack,
    );
  }

  task(i: TaskInput): Promise<MessageHandle> {
    return this.#context().then((ctx) => this.submitEnvelope(taskEnvelope(ctx, this.#sessioned(i))));
  }

  /**
   * Submits any envelope: checked locally (schema, ask contract, the Hub's advertised version and
   * limits), serialized ONCE, the bytes journaled before the POST and the ack after it.
   */
  async submitEnvelope(envelope: object): Promise<MessageHandle> {
    const cap = await this.capability();
    const message = validateEnvelope(envelope);
    if (message.to !== undefined) requireInterAgent(cap);
    const bytes = JSON.stringify(envelope);
    checkLimits(cap, message.context, bytes);
    const key = message.idempotency_key;
    if (this.#journal && key !== undefined) await this.#journal.save(key, bytes);
    const ack = await this.#post(bytes);
    if (this.#journal && key !== undefined) await this.#journal.complete(key, ack);
    if (message.to !== undefined) await this.#assertRouted(message.type, ack);
    return this.message(ack.id, ack);
  }

  /**
   * §8.1 misroute detector (sender MUST, v0.5): the ack of an addressed submit must carry the
   * `destination` snapshot — a pre-0.5 Hub cannot emit it, having ignored `to` and put the message in
   * the people's inbox. Capability detection alone is time-of-check/time-of-use across rolling
   * deploys; this check on the ack closes the gap. A misrouted ask or task is cancelled first (§8.4,
   * best effort), then MisrouteError is thrown.
   */
  async #assertRouted(type: string, ack: SubmitAck): Promise<void> {
    if (destinationSchema.safeParse(ack.destination).success) return;
    let cancelled = false;
    let cancelError: unknown = null;
    if (type === "ask" || type === "task") {
      try {
        await this.cancel(ack.id);
        cancelled = true;
      } catch (err) {
        // A replayed misroute whose cancel already landed is cancelled all the same.
        if (err instanceof AlreadyTerminalError && err.existing?.status === "cancelled") cancelled = true;
        else cancelError = err;
      }
    }
    const what = type === "notify" ? "" : cancelled ? "; it was cancelled (§8.4)" : "; cancelling it failed";
    throw new MisrouteError(
      `misrouted: the Hub accepted addressed ${type} ${ack.id} without a destination snapshot — a pre-0.5 Hub put it in the people's inbox (§8.1)${what}`,
      { status: 202, code: "misrouted", body: ack, ack, cancelled, cancelError },
    );
  }

  /** Re-POSTs the journaled bytes of `idempotencyKey`: the Hub answers the original ack (§8.1). */
  async replay(idempotencyKey: string): Promise<MessageHandle> {
    if (!this.#journal)
      throw new JournalError("replay needs a journal", { status: 0, code: "no_journal", local: true });
    const bytes = await this.#journal.load(idempotencyKey);
    if (bytes !== null && parseSent(bytes).to !== undefined) requireInterAgent(await this.capability());
    if (bytes === null) {
      throw new JournalError(`no journaled submit for this idempotency key`, {
        status: 0,
        code: "journal_miss",
        local: true,
      });
    }
    const ack = await this.#post(bytes);
    await this.#journal.complete(idempotencyKey, ack);
    const sent = parseSent(bytes);
    if (sent.to !== undefined) await this.#assertRouted(sent.type, ack);
    return this.message(ack.id, ack);
  }

  async #post(bytes: string): Promise<SubmitAck> {
    const reply = await this.#transport.request("POST", "/v1/messages", { body: bytes, touchpoint: "submit" });
    const ack = reply.body as SubmitAck;
    if (typeof ack?.id !== "string" || typeof ack.status !== "string") {
      throw new Ma2hError("the Hub's submit ack carries no id/status (§8.1)", {
        status: reply.status,
        code: "invalid_ack",
        body: reply.body,
      });
    }
    return ack;
  }

  /** A handle on a message id (the ack is synthesized from the id when none is known). */
  message(id: string, ack?: SubmitAck): MessageHandle {
    return {
      id,
      ack: ack ?? { id, status: "open", poll_url: `${this.url}/v1/messages/${encodeURIComponent(id)}` },
      ...(ack?.destination !== undefined ? { destination: ack.destination } : {}),
      wait: (o) => this.wait(id, o),
      cancel: () => this.cancel(id),
      acknowledge: (body) => this.ack(id, body),
    };
  }

  /** §8.2 one GET (`wait` long-polls, `since` → null on 304). */
  async get(id: string, o: GetOptions = {}): Promise<GetMessage | null> {
    return (await getMessage(this.#transport, id, o)).body;
  }

  /** Long-polls until the §6 Response (see wait.ts); WaitTimeoutError after `timeoutMs`. */
  wait(id: string, o: WaitOptions = {}): Promise<HubResponse> {
    return waitForResponse(this.#transport, id, o);
  }

  /** §8.4; a different terminal is AlreadyTerminalError with `existing`. */
  async cancel(id: string, o: { signal?: AbortSignal } = {}): Promise<{ id: string; status: string }> {
    const reply = await this.#transport.request("POST", `/v1/messages/${encodeURIComponent(id)}/cancel`, {
      touchpoint: "cancel",
      signal: o.signal,
    });
    return reply.body as { id: string; status: string };
  }

  /**
   * §8.8 as an agent resolver. Not retried on 5xx/network errors: a lost 200 would come back as a
   * 409 for our own resolution, so the caller decides (a GET tells the real outcome).
   */
  async resolve(
    id: string,
    body: { resolution: string; value?: unknown; comment?: string; checklist?: unknown[] },
    o: { signal?: AbortSignal; session?: string } = {},
  ): Promise<{ id: string; status: string; resolution_id?: string }> {
    try {
      parseResolveRequest(body);
    } catch (err) {
      if (isHubError(err)) throw localError(err.code as ErrorCode, err.message);
      throw err;
    }
    const reply = await this.#transport.request("POST", `/v1/messages/${encodeURIComponent(id)}/resolve`, {
      touchpoint: "resolve",
      // §8.8: `?session=` attests the resolver as that session of ours (`actor: agent:<id>#sess_…`).
      query: { session: o.session },
      body: JSON.stringify(body),
      retry5xx: false,
      signal: o.signal,
    });
    return reply.body as { id: string; status: string; resolution_id?: string };
  }

  /** §14.3 response-leg ack (idempotent: first ack wins, a repeat returns it). */
  async ack(
    id: string,
    body: { note?: string; resolution_id?: string } = {},
    o: { signal?: AbortSignal } = {},
  ): Promise<Ack> {
    const reply = await this.#transport.request("POST", `/v1/messages/${encodeURIComponent(id)}/ack`, {
      touchpoint: "ack",
      body: JSON.stringify(body),
      signal: o.signal,
    });
    return reply.body as Ack;
  }

  /** §16.1: registers a session of this agent — the address `agent:<id>#sess_…` one run drains at. */
  async registerSession(input: RegisterSessionInput = {}, o: { signal?: AbortSignal } = {}): Promise<SessionResource> {
    const session = await this.#sessions.register(input, o);
    this.#session = session.id;
    return session;
  }

  /** §16.3: closes one of this agent's sessions (idempotent); un-acked mail addressed to it bounces. */
  async closeSession(sessionId: string, o: { signal?: AbortSignal } = {}): Promise<SessionResource> {
    const session = await this.#sessions.close(sessionId, o);
    if (this.#session === sessionId) this.#session = null;
    return session;
  }

  /** This agent's address, or one of its sessions' (§4): what another agent puts in `to`. */
  address(sessionId?: string): string {
    return sessionId === undefined ? `agent:${this.agentId}` : `agent:${this.agentId}#${sessionId}`;
  }

  /**
   * §8.7.1 `GET /v1/inbox?session=`: directives, `message`, `response` and `receipt` entries, each
   * verified (§9.7/§9.8, the §13.4 session-qualified addressee check, shape, `jti`), deduplicated and
   * typed. `acceptFrom` is REQUIRED: the explicit §13.4 policy for which senders may ask/task this
   * agent (session-inbox.ts). Presenting the session renews its lease (§16.2).
   */
  drainSession(sessionId: string, o: SessionDrainOptions): Promise<VerifiedEntry[]> {
    return this.#sessions.drain(sessionId, o);
  }

  /** §8.7.1 `POST /v1/inbox/ack?session=`: consume entries by ack key (or the drained entries). */
  ackEntries(
    sessionId: string,
    entries: ReadonlyArray<string | VerifiedEntry>,
    o: { note?: string; signal?: AbortSignal } = {},
  ): Promise<{ acked: number }> {
    return this.#sessions.ack(sessionId, entries, o);
  }

  /** Gives a drained entry back (its processing failed): its redelivery will be handed out again. */
  releaseEntry(entry: VerifiedEntry): Promise<void> {
    return this.#sessions.release(entry);
  }
}

/** §8.0: a sender MUST feature-detect the inter-agent leg before using `to`. */
function requireInterAgent(cap: Capability): void {
  if (cap.inter_agent?.enabled === true) return;
  throw new CapabilityError("this Hub does not offer messages between agents (`inter_agent.enabled`, §8.0)", {
    status: 0,
    code: "inter_agent_not_offered",
    local: true,
  });
}

/** `type` and `to` of journaled submit bytes (they were validated when first sent). */
function parseSent(bytes: string): { type: string; to?: string } {
  const e = JSON.parse(bytes) as { type?: unknown; to?: unknown };
  return { type: String(e.type), ...(typeof e.to === "string" ? { to: e.to } : {}) };
}

/** §8.0/§8.6 advertised limits, checked before sending (the Hub would answer 422). */
function checkLimits(cap: Capability, context: unknown[] | undefined, bytes: string): void {
  const size = Buffer.byteLength(bytes, "utf8");
  if (cap.max_body_bytes !== undefined && size > cap.max_body_bytes) {
    throw new CapabilityError(`the envelope is ${size} bytes; the Hub's max_body_bytes is ${cap.max_body_bytes}`, {
      status: 0,
      code: "max_body_bytes",
      local: true,
    });
  }
  const parts = context ?? [];
  if (cap.max_context_parts !== undefined && parts.length > cap.max_context_parts) {
    throw new CapabilityError(
      `context has ${parts.length} parts; the Hub's max_context_parts is ${cap.max_context_parts}`,
      { status: 0, code: "max_context_parts", local: true },
    );
  }
  parts.forEach((part, i) => {
    const partSize = Buffer.byteLength(JSON.stringify(part), "utf8");
    if (cap.max_part_bytes !== undefined && partSize > cap.max_part_bytes) {
      throw new CapabilityError(
        `context[${i}] is ${partSize} bytes; the Hub's max_part_bytes is ${cap.max_part_bytes}`,
        {
          status: 0,
          code: "max_part_bytes",
          local: true,
        },
      );
    }
  });
}

/**
 * `client.messages`: the agent's messages to people and to other agents — submit (§8.1) with a
 * journal of the exact bytes, pull and long-poll (§8.2), cancel (§8.4), resolve as an agent resolver
 * (§8.8) and the response-leg ack (§14.3). Every submit answers one handle type (MessageHandle).
 * An addressed submit (`to`, v0.5) carries the sender's duties: §8.0 feature detection before it is
 * sent, the §8.1 misroute check on its ack.
 */
import type { Ack } from "@ma2h/protocol/ack";
import type { Capability } from "@ma2h/protocol/capability";
import { type ErrorCode, isHubError } from "@ma2h/protocol/errors";
import type { GetMessage } from "@ma2h/protocol/get-message";
import { parseResolveRequest } from "@ma2h/protocol/resolve-request";
import { type Destination, destinationSchema, type SubmitAck } from "@ma2h/protocol/submit-ack";
import { type AskAnswer, HUMAN_ONLY_FIELD } from "./answers";
import {
  type CommonInput,
  type ConfirmInput,
  confirmEnvelope,
  type EnvelopeContext,
  type InputAskInput,
  inputEnvelope,
  type NotifyInput,
  notifyEnvelope,
  type SelectInput,
  selectEnvelope,
  type TaskInput,
  taskEnvelope,
  validateEnvelope,
} from "./envelopes";
import { AlreadyTerminalError, CapabilityError, JournalError, localError, Ma2hError, MisrouteError } from "./errors";
import type { SubmitJournal } from "./journal";
import type { Transport } from "./transport";
import { type GetOptions, getMessage, type WaitOptions, waitForResponse } from "./wait";

/** What every submit answers: the message's id and ack, and the calls that act on it. */
export interface MessageHandle {
  readonly id: string;
  /** The Hub's §8.1 ack (synthesized from the id for `messages.handle(id)` without one). */
  readonly ack: SubmitAck;
  /** §8.1 the destination's reachability at send time; present exactly when the submit was addressed. */
  readonly destination?: Destination;
  /** §8.2 one GET (see `messages.get`). */
  get(o?: GetOptions): Promise<GetMessage | null>;
  /**
   * Long-polls until the §6 Response, with `byHuman` (see `messages.wait`). A notify has none: it
   * times out. On the handle of an ask made with `requireHuman`, `requireHuman` defaults to true.
   */
  wait(o?: WaitOptions): Promise<AskAnswer>;
  /** §8.4 (see `messages.cancel`). */
  cancel(o?: RequestControl): Promise<CancelResult>;
  /** §14.3 the response-leg ack (see `messages.ack`). */
  acknowledge(input?: AckInput, o?: RequestControl): Promise<Ack>;
}

export interface RequestControl {
  signal?: AbortSignal;
}

/** §8.4 the cancel's answer. */
export interface CancelResult {
  id: string;
  status: string;
}

/** §8.8 what an agent resolver answers. */
export interface ResolveInput {
  resolution: string;
  value?: unknown;
  comment?: string;
  checklist?: unknown[];
}

/** §8.8 the resolve's answer. */
export interface ResolveResult {
  id: string;
  status: string;
  resolution_id?: string;
}

/** §14.3 the response-leg ack's optional body. */
export interface AckInput {
  /** Shown to the people who resolved it. */
  note?: string;
  /** The `resolution_id` of the Response being acknowledged. */
  resolutionId?: string;
  /** @deprecated The 0.6.0 spelling of `resolutionId`. */
  resolution_id?: string;
}

/** `client.messages.ask`: one call per §5 ask kind. */
export interface AskCalls {
  confirm(input: ConfirmInput): Promise<MessageHandle>;
  select(input: SelectInput): Promise<MessageHandle>;
  input(input: InputAskInput): Promise<MessageHandle>;
}

/** What the client lends its messages: the transport, who is asking, the held session. */
export interface MessagesDeps {
  transport: Transport;
  journal: SubmitJournal | undefined;
  baseUrl: string;
  capability(): Promise<Capability>;
  context(): Promise<EnvelopeContext>;
  /** The session the client holds (§4.1 `agent.session` default), or null. */
  heldSession(): string | null;
}

export class Messages {
  readonly ask: AskCalls;
  readonly #d: MessagesDeps;

  constructor(deps: MessagesDeps) {
    this.#d = deps;
    this.ask = {
      confirm: async (i) =>
        this.#humanOnly(await this.submit(confirmEnvelope(await deps.context(), this.#sessioned(i))), i.requireHuman),
      select: async (i) =>
        this.#humanOnly(await this.submit(selectEnvelope(await deps.context(), this.#sessioned(i))), i.requireHuman),
      input: async (i) =>
        this.#humanOnly(await this.submit(inputEnvelope(await deps.context(), this.#sessioned(i))), i.requireHuman),
    };
  }

  /** The handle of a `requireHuman` ask: its `wait()` refuses an answer by a non-person (answers.ts). */
  #humanOnly(handle: MessageHandle, requireHuman: boolean | undefined): MessageHandle {
    if (requireHuman !== true) return handle;
    return { ...handle, wait: (o) => this.wait(handle.id, { requireHuman: true, ...o }) };
  }

  /** The input with `session` defaulted to the held one (an explicit string or null wins). */
  #sessioned<T extends CommonInput>(i: T): T {
    const held = this.#d.heldSession();
    return i.session !== undefined || held === null ? i : { ...i, session: held };
  }

  /** §5.1 a notify: no answer is expected. */
  async notify(input: NotifyInput): Promise<MessageHandle> {
    return this.submit(notifyEnvelope(await this.#d.context(), this.#sessioned(input)));
  }

  /** §5.3 a task: a person (or an addressed agent) does it and resolves it. */
  async task(input: TaskInput): Promise<MessageHandle> {
    return this.submit(taskEnvelope(await this.#d.context(), this.#sessioned(input)));
  }

  /**
   * Submits any envelope: checked locally (schema, ask contract, the Hub's advertised version and
   * limits), serialized ONCE, the bytes journaled before the POST and the ack after it.
   */
  async submit(envelope: object): Promise<MessageHandle> {
    const cap = await this.#d.capability();
    const message = validateEnvelope(envelope);
    if (message.to !== undefined) requireInterAgent(cap);
    const bytes = JSON.stringify(envelope);
    checkLimits(cap, message.context, bytes);
    const key = message.idempotency_key;
    const journal = this.#d.journal;
    if (journal && key !== undefined) await journal.save(key, bytes);
    const ack = await this.#post(bytes);
    if (journal && key !== undefined) await journal.complete(key, ack);
    if (message.to !== undefined) await this.#assertRouted(message.type, ack);
    return this.handle(ack.id, ack);
  }

  /** Re-POSTs the journaled bytes of `idempotencyKey`: the Hub answers the original ack (§8.1). */
  async replay(idempotencyKey: string): Promise<MessageHandle> {
    const journal = this.#d.journal;
    if (!journal) throw new JournalError("replay needs a journal", { status: 0, code: "no_journal", local: true });
    const bytes = await journal.load(idempotencyKey);
    if (bytes === null) {
      throw new JournalError("no journaled submit for this idempotency key", {
        status: 0,
        code: "journal_miss",
        local: true,
      });
    }
    const sent = parseSent(bytes);
    if (sent.to !== undefined) requireInterAgent(await this.#d.capability());
    const ack = await this.#post(bytes);
    await journal.complete(idempotencyKey, ack);
    if (sent.to !== undefined) await this.#assertRouted(sent.type, ack);
    return this.#humanOnly(this.handle(ack.id, ack), sent.humanOnly);
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

  async #post(bytes: string): Promise<SubmitAck> {
    const reply = await this.#d.transport.request("POST", "/v1/messages", { body: bytes, touchpoint: "submit" });
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
  handle(id: string, ack?: SubmitAck): MessageHandle {
    return {
      id,
      ack: ack ?? { id, status: "open", poll_url: `${this.#d.baseUrl}/v1/messages/${encodeURIComponent(id)}` },
      ...(ack?.destination !== undefined ? { destination: ack.destination } : {}),
      get: (o) => this.get(id, o),
      wait: (o) => this.wait(id, o),
      cancel: (o) => this.cancel(id, o),
      acknowledge: (input, o) => this.ack(id, input, o),
    };
  }

  /** §8.2 one GET (`wait` long-polls, `since` → null on 304). */
  async get(id: string, o: GetOptions = {}): Promise<GetMessage | null> {
    return (await getMessage(this.#d.transport, id, o)).body;
  }

  /**
   * Long-polls until the §6 Response (see wait.ts), returned with `byHuman`; WaitTimeoutError after
   * `timeoutMs`; NotAnsweredByHumanError with `requireHuman` when a non-person answered or declined.
   */
  wait(id: string, o: WaitOptions = {}): Promise<AskAnswer> {
    return waitForResponse(this.#d.transport, id, o);
  }

  /** §8.4; a different terminal is AlreadyTerminalError with `existing`. */
  async cancel(id: string, o: RequestControl = {}): Promise<CancelResult> {
    const reply = await this.#d.transport.request("POST", `/v1/messages/${encodeURIComponent(id)}/cancel`, {
      touchpoint: "cancel",
      signal: o.signal,
    });
    return reply.body as CancelResult;
  }

  /**
   * §8.8 as an agent resolver. Not retried on 5xx/network errors: a lost 200 would come back as a
   * 409 for our own resolution, so the caller decides (a GET tells the real outcome). `session`
   * attests the resolver as that session of ours (`actor: agent:<id>#sess_…`).
   */
  async resolve(
    id: string,
    input: ResolveInput,
    o: RequestControl & { session?: string } = {},
  ): Promise<ResolveResult> {
    try {
      parseResolveRequest(input);
    } catch (err) {
      if (isHubError(err)) throw localError(err.code as ErrorCode, err.message);
      throw err;
    }
    const reply = await this.#d.transport.request("POST", `/v1/messages/${encodeURIComponent(id)}/resolve`, {
      touchpoint: "resolve",
      query: { session: o.session },
      body: JSON.stringify(input),
      retry5xx: false,
      signal: o.signal,
    });
    return reply.body as ResolveResult;
  }

  /** §14.3 response-leg ack (idempotent: first ack wins, a repeat returns it). */
  async ack(id: string, input: AckInput = {}, o: RequestControl = {}): Promise<Ack> {
    const body = {
      ...(input.note !== undefined ? { note: input.note } : {}),
      ...((input.resolutionId ?? input.resolution_id) !== undefined
        ? { resolution_id: input.resolutionId ?? input.resolution_id }
        : {}),
    };
    const reply = await this.#d.transport.request("POST", `/v1/messages/${encodeURIComponent(id)}/ack`, {
      touchpoint: "ack",
      body: JSON.stringify(body),
      signal: o.signal,
    });
    return reply.body as Ack;
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

/** `type`, `to` and the human-only mark of journaled submit bytes (they were validated when first sent). */
function parseSent(bytes: string): { type: string; to?: string; humanOnly: boolean } {
  const e = JSON.parse(bytes) as { type?: unknown; to?: unknown; request?: Record<string, unknown> };
  return {
    type: String(e.type),
    ...(typeof e.to === "string" ? { to: e.to } : {}),
    humanOnly: e.request?.[HUMAN_ONLY_FIELD] === true,
  };
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

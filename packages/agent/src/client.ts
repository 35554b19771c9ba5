/**
 * `Ma2hClient`: the agent's side of the §8 HTTP binding, grouped by resource — `client.messages`
 * (submit, pull, long-poll, cancel, resolve, ack; messages.ts), `client.sessions` (§16 and the
 * verified session drain; sessions.ts), `client.directives` (the §8.7 mailbox; directives.ts) — and
 * discovery (§8.0, `capability()`). No presence call: presence is for the owning humans (§15.3).
 * The flat methods of 0.6.0 remain for one release as deprecated aliases (README, "Migrating").
 */
import { randomUUID } from "node:crypto";
import type { Ack } from "@ma2h/protocol/ack";
import { type Capability, capabilitySchema } from "@ma2h/protocol/capability";
import type { GetMessage } from "@ma2h/protocol/get-message";
import type { HubResponse } from "@ma2h/protocol/response";
import type { Destination, SubmitAck } from "@ma2h/protocol/submit-ack";
import { type DirectiveMailbox, HubDirectiveMailbox } from "./directives";
import { type EnvelopeContext, type NotifyInput, negotiateVersion, type TaskInput } from "./envelopes";
import { CapabilityError } from "./errors";
import type { SubmitJournal } from "./journal";
import { HubKeys } from "./keys";
import { type AskCalls, type CancelResult, type MessageHandle, Messages, type ResolveResult } from "./messages";
import {
  type RegisterSessionInput,
  type SessionDrainOptions,
  SessionInbox,
  type SessionResource,
} from "./session-inbox";
import { Sessions } from "./sessions";
import type { DedupStore, ReplayStore } from "./stores";
import { type RetryOptions, Transport } from "./transport";
import type { VerifiedEntry } from "./verify-entry";
import type { AskAnswer } from "./answers";
import type { GetOptions, WaitOptions } from "./wait";

export type { Ack, Capability, Destination, GetMessage, HubResponse, SubmitAck };
export type { GetOptions, WaitOptions } from "./wait";
export type {
  AckInput,
  AskCalls,
  CancelResult,
  MessageHandle,
  Messages,
  RequestControl,
  ResolveInput,
  ResolveResult,
} from "./messages";
export type { Sessions, SessionInput } from "./sessions";

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
  /** Persists the exact bytes of every submit, so `messages.replay(key)` can recover a lost ack. */
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

export class Ma2hClient {
  readonly url: string;
  readonly agentId: string;
  /** Messages to people and to other agents, and what acts on them (messages.ts). */
  readonly messages: Messages;
  /** §16 sessions and their verified drains (sessions.ts). */
  readonly sessions: Sessions;
  /** The §8.7 directive mailbox (directives.ts). */
  readonly directives: DirectiveMailbox;
  readonly #transport: Transport;
  readonly #agent: EnvelopeContext["agent"];
  #capability: Promise<Capability> | null = null;
  #session: string | null = null;

  constructor(o: Ma2hClientOptions) {
    if (!o.url || !o.apiKey || !o.agentId) throw new TypeError("Ma2hClient needs url, apiKey and agentId");
    this.#transport = new Transport({ url: o.url, apiKey: o.apiKey, fetch: o.fetch, retry: o.retry });
    this.url = this.#transport.baseUrl;
    this.agentId = o.agentId;
    this.#agent = { id: o.agentId, run_id: o.runId ?? `run_${randomUUID()}`, runtime: o.runtime ?? "other" };
    if (o.project !== undefined) this.#agent.project = o.project;
    const hubKeys = new HubKeys(this.#transport.baseUrl, o.fetch ? { fetch: o.fetch } : undefined);
    this.directives = new HubDirectiveMailbox({ transport: this.#transport, agentId: o.agentId, hubKeys });
    this.messages = new Messages({
      transport: this.#transport,
      journal: o.journal,
      baseUrl: this.url,
      capability: () => this.capability(),
      context: () => this.#context(),
      heldSession: () => this.#session,
    });
    const inbox = new SessionInbox({
      transport: this.#transport,
      agentId: o.agentId,
      hubKeys,
      dedupStore: o.dedupStore,
      replayStore: o.replayStore,
    });
    this.sessions = new Sessions(
      inbox,
      () => this.#session,
      (id) => {
        this.#session = id;
      },
    );
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
   * The session this client holds: the last one `sessions.register` returned and `sessions.close`
   * has not closed. Its submits name it as `agent.session` (§4.1: a session-registered agent SHOULD),
   * so their Responses land in its drain and their `from` is session-qualified; null when none.
   */
  get session(): string | null {
    return this.#session;
  }

  /** This agent's address, or one of its sessions' (§4): what another agent puts in `to`. */
  address(sessionId?: string): string {
    return sessionId === undefined ? `agent:${this.agentId}` : `agent:${this.agentId}#${sessionId}`;
  }

  // The 0.6.0 surface, kept for one release (README, "Migrating from 0.6.0").

  /** @deprecated Use `client.messages.ask.confirm|select|input`. */
  get ask(): AskCalls {
    return this.messages.ask;
  }

  /** @deprecated Use `client.messages.notify`, which answers a MessageHandle (its `ack` is this). */
  async notify(input: NotifyInput): Promise<SubmitAck> {
    return (await this.messages.notify(input)).ack;
  }

  /** @deprecated Use `client.messages.task`. */
  task(input: TaskInput): Promise<MessageHandle> {
    return this.messages.task(input);
  }

  /** @deprecated Use `client.messages.submit`. */
  submitEnvelope(envelope: object): Promise<MessageHandle> {
    return this.messages.submit(envelope);
  }

  /** @deprecated Use `client.messages.replay`. */
  replay(idempotencyKey: string): Promise<MessageHandle> {
    return this.messages.replay(idempotencyKey);
  }

  /** @deprecated Use `client.messages.handle`. */
  message(id: string, ack?: SubmitAck): MessageHandle {
    return this.messages.handle(id, ack);
  }

  /** @deprecated Use `client.messages.get`. */
  get(id: string, o: GetOptions = {}): Promise<GetMessage | null> {
    return this.messages.get(id, o);
  }

  /** @deprecated Use `client.messages.wait`. */
  wait(id: string, o: WaitOptions = {}): Promise<AskAnswer> {
    return this.messages.wait(id, o);
  }

  /** @deprecated Use `client.messages.cancel`. */
  cancel(id: string, o: { signal?: AbortSignal } = {}): Promise<CancelResult> {
    return this.messages.cancel(id, o);
  }

  /** @deprecated Use `client.messages.resolve`. */
  resolve(
    id: string,
    body: { resolution: string; value?: unknown; comment?: string; checklist?: unknown[] },
    o: { signal?: AbortSignal; session?: string } = {},
  ): Promise<ResolveResult> {
    return this.messages.resolve(id, body, o);
  }

  /** @deprecated Use `client.messages.ack` (camelCase: `{ note, resolutionId }`). */
  ack(
    id: string,
    body: { note?: string; resolution_id?: string } = {},
    o: { signal?: AbortSignal } = {},
  ): Promise<Ack> {
    return this.messages.ack(id, body, o);
  }

  /** @deprecated Use `client.sessions.register` (camelCase: `{ ttlSeconds, runId, … }`). */
  registerSession(input: RegisterSessionInput = {}, o: { signal?: AbortSignal } = {}): Promise<SessionResource> {
    return this.sessions.register(
      {
        ...(input.ttl_seconds !== undefined ? { ttlSeconds: input.ttl_seconds } : {}),
        ...(input.label !== undefined ? { label: input.label } : {}),
        ...(input.run_id !== undefined ? { runId: input.run_id } : {}),
        ...(input.kind !== undefined ? { kind: input.kind } : {}),
        ...(input.project !== undefined ? { project: input.project } : {}),
        ...(input.labels !== undefined ? { labels: input.labels } : {}),
      },
      o,
    );
  }

  /** @deprecated Use `client.sessions.close`. */
  closeSession(sessionId: string, o: { signal?: AbortSignal } = {}): Promise<SessionResource> {
    return this.sessions.close(sessionId, o);
  }

  /** @deprecated Use `client.sessions.drain`. */
  drainSession(sessionId: string, o: SessionDrainOptions): Promise<VerifiedEntry[]> {
    return this.sessions.drain(sessionId, o);
  }

  /** @deprecated Use `client.sessions.ack`. */
  ackEntries(
    sessionId: string,
    entries: ReadonlyArray<string | VerifiedEntry>,
    o: { note?: string; signal?: AbortSignal } = {},
  ): Promise<{ acked: number }> {
    return this.sessions.ack(sessionId, entries, o);
  }

  /** @deprecated Use `client.sessions.release`. */
  releaseEntry(entry: VerifiedEntry): Promise<void> {
    return this.sessions.release(entry);
  }
}

/**
 * `client.sessions`: the agent's sessions (§16) — register, close — and each session's verified
 * drain and ack (§8.7.1, session-inbox.ts). The client remembers the session it registered last
 * (`client.session`) and names it as `agent.session` on its submits until it is closed (§4.1).
 */
import type { SessionResource } from "@ma2h/protocol/session";
import type { RequestControl } from "./messages";
import type { RegisterSessionInput, SessionDrainOptions, SessionInbox } from "./session-inbox";
import type { VerifiedEntry } from "./verify-entry";

/** §16.1 what a registration may say; every field optional. */
export interface SessionInput {
  /** The lease, in seconds (the Hub clamps it to its bounds). */
  ttlSeconds?: number;
  label?: string;
  /** §4.1 the run this session belongs to. */
  runId?: string;
  kind?: string;
  project?: string;
  labels?: Record<string, string>;
}

/** The wire body of `POST /v1/sessions` (snake_case, as §16.1 names it). */
export function sessionBody(input: SessionInput): RegisterSessionInput {
  const body: RegisterSessionInput = {};
  if (input.ttlSeconds !== undefined) body.ttl_seconds = input.ttlSeconds;
  if (input.label !== undefined) body.label = input.label;
  if (input.runId !== undefined) body.run_id = input.runId;
  if (input.kind !== undefined) body.kind = input.kind;
  if (input.project !== undefined) body.project = input.project;
  if (input.labels !== undefined) body.labels = input.labels;
  return body;
}

export class Sessions {
  readonly #inbox: SessionInbox;
  readonly #hold: (sessionId: string | null) => void;
  readonly #held: () => string | null;

  constructor(inbox: SessionInbox, held: () => string | null, hold: (sessionId: string | null) => void) {
    this.#inbox = inbox;
    this.#held = held;
    this.#hold = hold;
  }

  /** §16.1: registers a session of this agent — the address `agent:<id>#sess_…` one run drains at. */
  async register(input: SessionInput = {}, o: RequestControl = {}): Promise<SessionResource> {
    const session = await this.#inbox.register(sessionBody(input), o);
    this.#hold(session.id);
    return session;
  }

  /** §16.3: closes one of this agent's sessions (idempotent); un-acked mail addressed to it bounces. */
  async close(sessionId: string, o: RequestControl = {}): Promise<SessionResource> {
    const session = await this.#inbox.close(sessionId, o);
    if (this.#held() === sessionId) this.#hold(null);
    return session;
  }

  /**
   * §8.7.1 `GET /v1/inbox?session=`: directives, `message`, `response` and `receipt` entries, each
   * verified (§9.7/§9.8, the §13.4 session-qualified addressee check, shape, `jti`), deduplicated and
   * typed. `acceptFrom` is REQUIRED: the explicit §13.4 policy for which senders may ask/task this
   * agent (session-inbox.ts). Presenting the session renews its lease (§16.2).
   */
  drain(sessionId: string, o: SessionDrainOptions): Promise<VerifiedEntry[]> {
    return this.#inbox.drain(sessionId, o);
  }

  /** §8.7.1 `POST /v1/inbox/ack?session=`: consume entries by ack key (or the drained entries). */
  ack(
    sessionId: string,
    entries: ReadonlyArray<string | VerifiedEntry>,
    o: { note?: string; signal?: AbortSignal } = {},
  ): Promise<{ acked: number }> {
    return this.#inbox.ack(sessionId, entries, o);
  }

  /** Gives a drained entry back (its processing failed): its redelivery will be handed out again. */
  release(entry: VerifiedEntry): Promise<void> {
    return this.#inbox.release(entry);
  }
}

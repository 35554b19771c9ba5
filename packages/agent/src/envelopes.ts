/**
 * Friendly inputs → v0.6 message envelopes (§4, §5), and the local check an envelope passes before
 * it is sent: the Hub's own zod mirror of message.schema.json, the v0.6 ask contract (unique option
 * values, an answerable input schema, §5.2) and the submit-time semantics (`expires_at` in the
 * future, `default_on_expire` a valid answer, §7). A refusal here is the typed error the Hub would
 * answer (ValidationError / InvalidFieldError, `local: true`) — and no request is made.
 */
import { randomUUID } from "node:crypto";
import { assertAskAnswerable } from "@ma2h/protocol/ask-contract";
import { type ErrorCode, isHubError } from "@ma2h/protocol/errors";
import { type Message, parseMessage } from "@ma2h/protocol/message";
import { checkSubmitSemantics } from "@ma2h/protocol/rules";
import { assertSupportedMajor, parseVersion } from "@ma2h/protocol/versions";
import { HUMAN_ONLY_FIELD } from "./answers";
import { CapabilityError, localError } from "./errors";

/** The newest version this SDK speaks (§10). */
export const SDK_VERSION = "0.6";
/** §5.2: `allow_edit` is v0.6 vocabulary. */
const ALLOW_EDIT_MIN_MINOR = 6;

export type Priority = "low" | "normal" | "high" | "urgent";
export type Part =
  | { kind: "text"; text: string; metadata?: Record<string, unknown> }
  | { kind: "data"; data: Record<string, unknown>; metadata?: Record<string, unknown> }
  | { kind: "file"; file: { uri: string; name?: string; mime_type?: string }; metadata?: Record<string, unknown> };

/** §8.3 push callback; the secret itself never leaves the agent — only its reference (§9.2). */
export interface CallbackInput {
  url: string;
  auth?: { scheme: "hmac"; secretRef: string } | { scheme: "bearer" | "apikey"; tokenRef: string };
}

export interface CommonInput {
  title: string;
  body?: string;
  priority?: Priority;
  tags?: string[];
  context?: Part[];
  /** §9.3 opaque resume blob (an object, e.g. from sealState); returned verbatim in the Response. */
  state?: Record<string, unknown>;
  clientRef?: string;
  /** §8.1 dedup key; a random one when absent. Keep it to replay a submit after a crash. */
  idempotencyKey?: string;
  /** §7 auto-resolution boundary; must be in the future. */
  expiresAt?: Date | string;
  /**
   * §7 the same boundary, relative: `expires_at` is stamped this many milliseconds after the moment
   * the envelope is built — after the capability round trip, so a slow Hub does not eat a short
   * expiry before the submit leaves. Not with `expiresAt`.
   */
  expiresInMs?: number;
  sensitive?: boolean;
  /**
   * §4 (v0.5) the addressee: `agent:<id>` (whichever of its sessions drains first) or
   * `agent:<id>#sess_…` (that session). Absent: the people's inbox. An addressed submit is checked
   * against the capability document first and its ack against the §8.1 misroute rule (client.ts).
   */
  to?: string;
  /**
   * §4.1 / §16 (v0.5) `agent.session`: the sender's own live session. The Hub attests it in the
   * addressee's `from`, and the Response (and any bounce receipt) lands in that session's drain.
   * Absent, the client names the session it holds (the last it registered and has not closed);
   * `null` sends without one.
   */
  session?: string | null;
}
export type NotifyInput = CommonInput;

interface AskCommon extends CommonInput {
  callback?: CallbackInput;
  allowedResolvers?: string[];
  /**
   * Only a person may answer: sets `request["x-ma2h-human-only"] = true` (a Hub with standing rules
   * does not answer it by rule; a v0.6 Hub ignores the field) and makes the handle's `wait()` throw
   * NotAnsweredByHumanError when it is answered or declined by a non-`human:` actor anyway. An
   * expiry (with `defaultOnExpire` applied or not) is returned as usual: that is your own fallback.
   */
  requireHuman?: boolean;
}
export interface ConfirmInput extends AskCommon {
  defaultOnExpire?: "approve" | "deny" | null;
  /** §5.2: offer a free-form answer besides approve/deny (needs a Hub speaking ≥ 0.6). */
  allowEdit?: boolean;
}
export interface SelectOption {
  value: string;
  label?: string;
  description?: string;
}
export interface SelectInput extends AskCommon {
  options: Array<SelectOption | string>;
  allowEdit?: boolean;
  defaultOnExpire?: string | null;
}
export interface InputAskInput extends AskCommon {
  /** The flat JSON Schema of the answer object (§5.2). */
  schema: Record<string, unknown>;
  defaultOnExpire?: Record<string, unknown> | null;
}
export interface TaskInput extends CommonInput {
  action: {
    instructions: string;
    checklist?: Array<string | { text: string; done?: boolean }>;
    verification?: string;
  };
  callback?: CallbackInput;
  allowedResolvers?: string[];
}

/** Who is asking (§4.1) and in which version. */
export interface EnvelopeContext {
  version: string;
  agent: { id: string; run_id: string; runtime: string; project?: string };
  now?: Date;
}

/** The lower of the SDK's version and the Hub's advertised one (same major 0, §10). */
export function negotiateVersion(hubVersion: string): string {
  const hub = parseVersion(hubVersion);
  const ours = parseVersion(SDK_VERSION) as { major: number; minor: number };
  if (hub === null || hub.major !== ours.major) {
    throw new CapabilityError(`the Hub speaks ma2h ${JSON.stringify(hubVersion)}; this SDK speaks 0.x (§10)`, {
      status: 0,
      code: "version_not_supported",
      local: true,
    });
  }
  return hub.minor < ours.minor ? hubVersion : SDK_VERSION;
}

function iso(at: Date | string): string {
  return typeof at === "string" ? at : at.toISOString();
}

function common(type: "notify" | "ask" | "task", ctx: EnvelopeContext, i: CommonInput): Record<string, unknown> {
  const agent: Record<string, unknown> = { id: ctx.agent.id, run_id: ctx.agent.run_id, runtime: ctx.agent.runtime };
  if (ctx.agent.project !== undefined) agent.project = ctx.agent.project;
  if (typeof i.session === "string") agent.session = i.session;
  const now = ctx.now ?? new Date();
  const e: Record<string, unknown> = {
    ma2h_version: ctx.version,
    type,
    created_at: now.toISOString(),
    agent,
  };
  if (i.to !== undefined) e.to = i.to;
  e.title = i.title;
  if (i.body !== undefined) e.body = i.body;
  if (i.priority !== undefined) e.priority = i.priority;
  if (i.tags !== undefined) e.tags = i.tags;
  if (i.context !== undefined) e.context = i.context;
  if (i.state !== undefined) e.state = i.state;
  if (i.clientRef !== undefined) e.client_ref = i.clientRef;
  e.idempotency_key = i.idempotencyKey ?? `idem_${randomUUID()}`;
  if (i.expiresAt !== undefined && i.expiresInMs !== undefined)
    throw new TypeError("give expiresAt or expiresInMs, not both");
  if (i.expiresAt !== undefined) e.expires_at = iso(i.expiresAt);
  if (i.expiresInMs !== undefined) {
    if (!Number.isFinite(i.expiresInMs) || i.expiresInMs <= 0) throw new TypeError("expiresInMs must be above zero");
    e.expires_at = new Date(now.getTime() + i.expiresInMs).toISOString();
  }
  if (i.sensitive !== undefined) e.sensitive = i.sensitive;
  return e;
}

function callback(c: CallbackInput | undefined): Record<string, unknown> | undefined {
  if (c === undefined) return undefined;
  const out: Record<string, unknown> = { mode: "push", url: c.url };
  if (c.auth?.scheme === "hmac") out.auth = { scheme: "hmac", secret_ref: c.auth.secretRef };
  else if (c.auth) out.auth = { scheme: c.auth.scheme, token_ref: c.auth.tokenRef };
  return out;
}

function requireAllowEdit(ctx: EnvelopeContext): void {
  const v = parseVersion(ctx.version);
  if (v === null || v.minor < ALLOW_EDIT_MIN_MINOR) {
    throw new CapabilityError(
      `allowEdit needs ma2h ≥ 0.${ALLOW_EDIT_MIN_MINOR}; the Hub speaks ${ctx.version} and would ignore it (§5.2)`,
      { status: 0, code: "version_not_supported", local: true },
    );
  }
}

function ask(
  ctx: EnvelopeContext,
  i: AskCommon & { allowEdit?: boolean },
  request: Record<string, unknown>,
): Record<string, unknown> {
  if (i.allowEdit === true) {
    requireAllowEdit(ctx);
    request.permissions = { allow_edit: true };
  }
  if (i.allowedResolvers !== undefined) request.allowed_resolvers = i.allowedResolvers;
  const cb = callback(i.callback);
  if (cb !== undefined) request.callback = cb;
  if (i.requireHuman === true) {
    // Another agent answers an addressed ask (§4, v0.5): a person never would, so every answer would be refused.
    if (i.to !== undefined) throw new TypeError("requireHuman asks a person: not with `to` (an agent answers that)");
    request[HUMAN_ONLY_FIELD] = true;
  }
  return { ...common("ask", ctx, i), request };
}

export function notifyEnvelope(ctx: EnvelopeContext, i: NotifyInput): Record<string, unknown> {
  return common("notify", ctx, i);
}

export function confirmEnvelope(ctx: EnvelopeContext, i: ConfirmInput): Record<string, unknown> {
  const request: Record<string, unknown> = { mode: "confirm" };
  if (i.defaultOnExpire !== undefined) request.default_on_expire = i.defaultOnExpire;
  return ask(ctx, i, request);
}

export function selectEnvelope(ctx: EnvelopeContext, i: SelectInput): Record<string, unknown> {
  const options = i.options.map((o) => {
    const opt = typeof o === "string" ? { value: o } : o;
    const out: Record<string, unknown> = { value: opt.value, label: opt.label ?? opt.value };
    if (opt.description !== undefined) out.description = opt.description;
    return out;
  });
  const request: Record<string, unknown> = { mode: "select", options };
  if (i.defaultOnExpire !== undefined) request.default_on_expire = i.defaultOnExpire;
  return ask(ctx, i, request);
}

export function inputEnvelope(ctx: EnvelopeContext, i: InputAskInput): Record<string, unknown> {
  const request: Record<string, unknown> = { mode: "input", schema: i.schema };
  if (i.defaultOnExpire !== undefined) request.default_on_expire = i.defaultOnExpire;
  return ask(ctx, i, request);
}

export function taskEnvelope(ctx: EnvelopeContext, i: TaskInput): Record<string, unknown> {
  const action: Record<string, unknown> = { instructions: i.action.instructions };
  if (i.action.checklist !== undefined)
    action.checklist = i.action.checklist.map((c) =>
      typeof c === "string" ? { text: c, done: false } : { text: c.text, done: c.done ?? false },
    );
  if (i.action.verification !== undefined) action.verification = i.action.verification;
  if (i.allowedResolvers !== undefined) action.allowed_resolvers = i.allowedResolvers;
  const cb = callback(i.callback);
  if (cb !== undefined) action.callback = cb;
  return { ...common("task", ctx, i), action };
}

/**
 * The Hub's submit-time checks, run locally: §10 major, the §5.2 ask contract, the schema, then the
 * §4/§7 semantics. Throws the typed error the Hub would answer, marked `local`.
 */
export function validateEnvelope(envelope: unknown, now = new Date()): Message {
  try {
    assertSupportedMajor(envelope);
    assertAskAnswerable(envelope);
    const message = parseMessage(envelope);
    checkSubmitSemantics(message, now);
    return message;
  } catch (err) {
    if (isHubError(err)) throw localError(err.code as ErrorCode, err.message);
    throw err;
  }
}

/**
 * The item view model a resolver sees, built field by field from the stored envelope — an allow
 * list, so `state` and `client_ref` (§9.1, §9.3) can never reach a page. Values of sensitive input
 * fields (§9.6) are masked here, on the server — in the recorded outcome and in `default_on_expire`
 * — because the whole view model travels to the browser (the resolve panel is a client component):
 * masking only in the display would still put the value in the page payload.
 */
import { routingOf } from "../policies/routing";
import type { ItemHistory } from "./handovers";
import type { ReassignChoices } from "../assignment/reassign";
import type { RememberView } from "../standing-rules/item";
import type { Routing } from "../policies/evaluate";
import type { MessageWithResolution } from "../messages/record";
import type { Message } from "@ma2h/protocol/message";
import { allowsFreeFormAnswer, effectiveOptions } from "@ma2h/protocol/ask-contract";
import {
  choicesOf,
  sensitiveProperties,
  type FlatChoice,
  type FlatProperty,
  type FlatSchema,
} from "@ma2h/protocol/flat-schema";
import type { Seat } from "../principals/types";
import type { ApprovalState } from "../approvals/tally";
import type { Affordances } from "./affordances";

export const MASK = "••••••";

export type ContextPartView =
  | { kind: "text"; text: string }
  | { kind: "data"; json: string }
  | {
      kind: "file";
      name: string | null;
      mimeType: string | null;
      uri: string;
      host: string | null;
      href: string | null;
    };

export interface FieldView {
  name: string;
  /** `array` is a multi-select of `choices` (§5.2 as MCP elicitation's restricted schema). */
  type: FlatProperty["type"];
  /** The allowed values of a single-select (`enum`, titled `oneOf`), or null. */
  enum: Array<string | number | boolean> | null;
  /** Every choice with the label a person reads (single- or multi-select), or null. */
  choices: FlatChoice[] | null;
  title: string | null;
  description: string | null;
  required: boolean;
  /** Its value is masked: an `x-ma2h-sensitive` field, or any field of a `sensitive: true` message. */
  sensitive: boolean;
  /**
   * `default_on_expire` suggests a value for this masked field: the value stays on the server, and
   * the field left blank answers with it (lib/inbox/answer.ts).
   */
  hiddenDefault: boolean;
  /**
   * The schema's own `default` (the form's prefill where `default_on_expire` names nothing); null on
   * a masked field, whose values never reach the page (§9.6).
   */
  default: string | number | boolean | string[] | null;
  /** The constraints the form shows and the browser checks first; the Hub validates every resolve. */
  minLength: number | null;
  maxLength: number | null;
  pattern: string | null;
  format: FlatProperty["format"] | null;
  minimum: number | null;
  maximum: number | null;
  minItems: number | null;
  maxItems: number | null;
}

export interface AskView {
  mode: "select" | "input" | "confirm";
  options: Array<{ value: string; label: string; description: string | null }>;
  fields: FieldView[];
  /**
   * §5.2 (v0.6): offer the free-form answer beside the options — `allow_edit: true` on a
   * select/confirm declaring minor ≥ 6. `allow_accept` (removed in v0.6) is not read.
   */
  freeForm: boolean;
  /**
   * `default_on_expire` (null when absent or null): the prefill, and what expiry will apply —
   * without the values of masked fields (they stay on the server; `FieldView.hiddenDefault`).
   */
  defaultOnExpire: string | Record<string, unknown> | null;
  /** What expiry will apply, for display (option label; sensitive input values masked). */
  defaultSummary: string | null;
}

export interface TaskView {
  instructions: string;
  checklist: Array<{ text: string; done: boolean }>;
  verification: string | null;
}

export interface ResolutionView {
  resolution: string;
  actor: string;
  resolvedAt: string;
  defaulted: boolean;
  value: string | Record<string, unknown> | null;
  /** The chosen option's label (select/confirm), when it has one. */
  valueLabel: string | null;
  edited: boolean;
  comment: string | null;
  checklist: Array<{ text: string; done: boolean }> | null;
}

/**
 * The approvals of an ask a quorum rule routed (docs/policies.md "Quorum"), as the page gets them:
 * each vote's person, answer (an option's value, listed on the page anyway), time and whether it
 * still counts — never its comment, which is the Response's only when its vote completes the ask.
 * `components/Approvals.tsx` shows it in the one line every channel uses (`approvalsLine`).
 */
export interface ApprovalsView {
  need: number;
  have: Record<string, number>;
  votes: Array<{ handle: string; value: string; at: string; counts: boolean; forHandle?: string }>;
}

export function approvalsView(state: ApprovalState): ApprovalsView {
  return {
    need: state.need,
    have: state.have,
    votes: state.votes.map((v) => ({
      handle: v.handle,
      value: v.value,
      at: v.at.toISOString(),
      counts: v.counts,
      ...(v.forHandle ? { forHandle: v.forHandle } : {}),
    })),
  };
}

export interface ItemView {
  id: string;
  account: string;
  type: "notify" | "ask" | "task";
  status: string;
  title: string;
  priority: "urgent" | "high" | "normal" | "low";
  tags: string[];
  body: string | null;
  sensitive: boolean;
  agent: {
    id: string;
    runId: string;
    runtime: string;
    project: string | null;
    labels: Array<[string, string]>;
    /** The submitting session, when the envelope names one (`agent.session`, §4.1, §16). */
    session: string | null;
  };
  /**
   * §4 `to` of an addressed (agent↔agent) message, `agent:<id>` or `agent:<id>#<sess>`; null for a
   * message to people. Readable by every seat (§8.7.1); resolving it is another matter (§9.1).
   */
  to: string | null;
  context: ContextPartView[];
  createdAt: string;
  expiresAt: string | null;
  ask: AskView | null;
  task: TaskView | null;
  resolution: ResolutionView | null;
  viewer: { handle: string; role: string };
  /**
   * The account's approval policy as it applied at submit (docs/policies.md): the rules that matched
   * and the people they asked. Null: the default policy (every answering member).
   */
  routing: { rules: string[]; asked: string[] } | null;
  /** The approvals so far, when a quorum rule routed the ask (null otherwise). */
  approvals: ApprovalsView | null;
  can: Affordances;
  /** Hand-overs and escalations since submit, and whom a delegate answered for (lib/inbox/handovers.ts). */
  history: ItemHistory;
  /** Whom this person may hand the item to (null: they may not hand it on, or it is settled). */
  reassign: ReassignChoices | null;
  /** "Answer and remember" (docs/policies.md "Standing rules"): null when this person may not make a rule of it. */
  remember: RememberView | null;
  /** The standing rule that answered it, when one did. */
  answeredByRule: { id: string; creator: string; words: string; hits: number; state: string } | null;
}

/** An http(s) URL's host, or null — only those become links; nothing is ever fetched. */
export function webHost(uri: string): string | null {
  try {
    const u = new URL(uri);
    return u.protocol === "http:" || u.protocol === "https:" ? u.host : null;
  } catch {
    return null;
  }
}

function contextView(message: Message): ContextPartView[] {
  return (message.context ?? []).map((part): ContextPartView => {
    if (part.kind === "text") return { kind: "text", text: part.text };
    if (part.kind === "data") return { kind: "data", json: JSON.stringify(part.data, null, 2) };
    const host = webHost(part.file.uri);
    return {
      kind: "file",
      name: part.file.name ?? null,
      mimeType: part.file.mime_type ?? null,
      uri: part.file.uri,
      host,
      href: host ? part.file.uri : null,
    };
  });
}

/** The input fields whose values are masked (§9.6): the marked ones, or all on a `sensitive: true` message. */
function maskedFields(message: Message): Set<string> {
  if (message.type !== "ask" || message.request.mode !== "input") return new Set();
  const schema = message.request.schema as unknown as FlatSchema;
  return new Set(message.sensitive === true ? Object.keys(schema.properties) : sensitiveProperties(schema));
}

/** The input default's values of masked fields — server side only, never in a view (answer.ts). */
export function hiddenInputDefaults(message: Message): Record<string, unknown> {
  if (message.type !== "ask" || message.request.mode !== "input") return {};
  const fallback = message.request.default_on_expire;
  if (fallback === null || fallback === undefined || typeof fallback !== "object") return {};
  const masked = maskedFields(message);
  return Object.fromEntries(Object.entries(fallback).filter(([k, v]) => masked.has(k) && v !== null));
}

function fieldsOf(message: Extract<Message, { type: "ask" }>): FieldView[] {
  const schema = message.request.schema as unknown as FlatSchema;
  const required = new Set(schema.required ?? []);
  const masked = maskedFields(message);
  const hidden = hiddenInputDefaults(message);
  return Object.entries(schema.properties).map(([name, p]) => {
    const choices = choicesOf(p);
    // A masked field's default is a value like any other: it stays off the page (§9.6).
    const fallback = masked.has(name) ? undefined : p.default;
    const shownDefault = Array.isArray(fallback)
      ? fallback.filter((v): v is string => typeof v === "string")
      : typeof fallback === "string" || typeof fallback === "number" || typeof fallback === "boolean"
        ? fallback
        : null;
    return {
      name,
      type: p.type,
      enum: p.type === "array" || choices === null ? null : choices.map((c) => c.value),
      choices,
      title: p.title ?? null,
      description: p.description ?? null,
      required: required.has(name),
      sensitive: masked.has(name),
      hiddenDefault: name in hidden,
      default: shownDefault,
      minLength: p.minLength ?? null,
      maxLength: p.maxLength ?? null,
      pattern: p.pattern ?? null,
      format: p.format ?? null,
      minimum: p.minimum ?? null,
      maximum: p.maximum ?? null,
      minItems: p.minItems ?? null,
      maxItems: p.maxItems ?? null,
    };
  });
}

/** `percent: 10, region: eu` */
function summarize(value: Record<string, unknown>): string {
  return Object.entries(value)
    .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(", ");
}

function askView(message: Extract<Message, { type: "ask" }>, routing: Routing | null): AskView {
  const r = message.request;
  const fallback = r.default_on_expire ?? null;
  const shown = maskValue(message, fallback);
  const label = typeof fallback === "string" ? effectiveOptions(r).find((o) => o.value === fallback)?.label : undefined;
  return {
    mode: r.mode,
    options:
      r.mode === "input"
        ? []
        : effectiveOptions(r).map((o) => ({ value: o.value, label: o.label, description: o.description ?? null })),
    fields: r.mode === "input" ? fieldsOf(message) : [],
    // Under a quorum of more than one the free-form answer is not offered (§5.2 lets a Hub decline
    // it): M people could never give the same typed answer (docs/policies.md "Quorum").
    freeForm: allowsFreeFormAnswer(message) && (routing?.quorum?.approvals ?? 1) === 1,
    // select/confirm: an option value, listed on the page anyway; input: masked fields left out.
    defaultOnExpire: withoutMasked(message, fallback),
    defaultSummary:
      shown === null ? null : typeof shown === "string" ? (label ? `${label} (${shown})` : shown) : summarize(shown),
  };
}

/** Input values of sensitive fields (every field, on a `sensitive: true` message) are masked. */
function maskValue(message: Message, value: unknown): string | Record<string, unknown> | null {
  if (value === undefined || value === null) return null;
  if (typeof value === "string") return value;
  if (typeof value !== "object" || Array.isArray(value)) return JSON.stringify(value);
  const schema = message.type === "ask" ? message.request.schema : undefined;
  const hidden = new Set(sensitiveProperties(schema));
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, message.sensitive === true || hidden.has(k) ? MASK : v]),
  );
}

/** An input default without its masked fields (the prefill); anything else as it is. */
function withoutMasked(message: Message, fallback: unknown): AskView["defaultOnExpire"] {
  if (fallback === undefined || fallback === null) return null;
  if (typeof fallback !== "object" || Array.isArray(fallback)) return fallback as AskView["defaultOnExpire"];
  const masked = maskedFields(message);
  return Object.fromEntries(Object.entries(fallback).filter(([k]) => !masked.has(k)));
}

function resolutionView(row: MessageWithResolution, message: Message): ResolutionView | null {
  const r = row.resolution;
  if (!r) return null;
  const response = (r.response === null ? {} : JSON.parse(r.response)) as Record<string, unknown>;
  // A person's own words on a `sensitive: true` ask are masked like its input values (§9.6); a
  // listed option is the agent's own text and stays readable.
  const value = message.sensitive === true && response.edited === true ? MASK : maskValue(message, response.value);
  const label =
    message.type === "ask" && typeof value === "string"
      ? effectiveOptions(message.request).find((o) => o.value === value)?.label
      : undefined;
  return {
    resolution: r.resolution,
    actor: r.actor,
    resolvedAt: r.resolvedAt.toISOString(),
    defaulted: r.defaulted,
    value,
    valueLabel: label ?? null,
    edited: response.edited === true,
    comment: typeof response.comment === "string" ? response.comment : null,
    checklist: Array.isArray(response.checklist) ? (response.checklist as ResolutionView["checklist"]) : null,
  };
}

function routedView(row: { routing: string | null }): ItemView["routing"] {
  const routing = routingOf(row);
  return routing && { rules: routing.rules, asked: routing.eligible.map((h) => `human:${h}`) };
}

export function buildItemView(
  row: MessageWithResolution & { agent: { agentId: string }; account: { slug: string } },
  message: Message,
  seat: Seat,
  can: Affordances,
  approvals: ApprovalState | null,
  history: ItemHistory = { handovers: [], answeredFor: null },
  reassign: ReassignChoices | null = null,
  remember: RememberView | null = null,
  answeredByRule: ItemView["answeredByRule"] = null,
): ItemView {
  const a = message.agent;
  return {
    id: row.id,
    account: row.account.slug,
    type: message.type,
    status: row.status,
    title: message.title,
    priority: message.priority ?? "normal",
    tags: message.tags ?? [],
    body: message.body ?? null,
    sensitive: message.sensitive === true,
    agent: {
      id: row.agent.agentId,
      runId: a.run_id,
      runtime: a.runtime,
      project: a.project ?? null,
      labels: Object.entries(a.labels ?? {}),
      session: a.session ?? null,
    },
    to: row.toAddress ?? null,
    context: contextView(message),
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    ask: message.type === "ask" ? askView(message, routingOf(row)) : null,
    task:
      message.type === "task"
        ? {
            instructions: message.action.instructions,
            checklist: (message.action.checklist ?? []).map((c) => ({ text: c.text, done: c.done === true })),
            verification: message.action.verification ?? null,
          }
        : null,
    resolution: resolutionView(row, message),
    viewer: { handle: seat.handle, role: seat.role },
    routing: routedView(row),
    approvals: approvals && approvalsView(approvals),
    can,
    history,
    reassign,
    remember,
    answeredByRule,
  };
}

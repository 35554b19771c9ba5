/**
 * The Hub's spans, by what they time (docs/DEPLOYMENT.md, "Tracing"), all under `ma2h.*` (no
 * semantic convention for human approval exists yet):
 * - `ma2h.submit` — POST /v1/messages, continued from the agent's `traceparent`;
 * - `ma2h.resolve` — an answer arriving (any channel), in the message's trace;
 * - `ma2h.human_wait` — submit → terminal, with the resolution and the actor's kind;
 * - `ma2h.push.attempt` — each §8.3 attempt, with its outcome and status;
 * - `ma2h.delivery` — terminal → the answer delivered to the agent (push or pull).
 * The message's trace is kept in `message_traces` while tracing is on, so spans in the worker and
 * in other web processes join the agent's trace. Nothing here reads or writes when tracing is off.
 */
import type { Context, Span } from "@opentelemetry/api";
import { db } from "../db";
import { log } from "../log";
import { contextOf, incomingContext, inSpan, recordSpan, SpanKind, tracer, traceparentOf } from "./tracing";

/** The message's trace (its submit span), or null — tracing off, or submitted while it was off. */
export async function messageTrace(messageId: string): Promise<Context | null> {
  if (!tracer()) return null;
  const row = await db().messageTrace.findUnique({ where: { messageId } });
  return row ? contextOf(row.traceparent) : null;
}

/** `ma2h.submit`: the agent's request, as a child of the trace it sent. */
export function submitSpan<T>(req: Request, fn: (span: Span | null) => Promise<T>): Promise<T> {
  if (!tracer()) return fn(null);
  return inSpan("ma2h.submit", { parent: incomingContext(req.headers), kind: SpanKind.SERVER }, fn);
}

/** Keeps the submit span's trace for the message's later spans. Best effort: telemetry never fails a submit. */
export async function rememberTrace(messageId: string, span: Span | null): Promise<void> {
  if (!span) return;
  try {
    await db().messageTrace.createMany({
      data: [{ messageId, traceparent: traceparentOf(span) }],
      skipDuplicates: true,
    });
  } catch (err) {
    log.warn("could not keep a message's trace", { error_name: (err as Error).name });
  }
}

/** `ma2h.resolve`: an answer arriving for `messageId`, in the message's trace. */
export async function resolveSpan<T>(messageId: string, fn: (span: Span | null) => Promise<T>): Promise<T> {
  if (!tracer()) return fn(null);
  const parent = (await messageTrace(messageId)) ?? undefined;
  return inSpan("ma2h.resolve", { parent, attributes: { "ma2h.message.id": messageId } }, fn);
}

/** `ma2h.human_wait` once a message went terminal: from its submit to now. */
export async function recordHumanWait(t: {
  messageId: string;
  resolution: string;
  actor: string;
  defaulted: boolean;
  at: Date;
}): Promise<void> {
  if (!tracer()) return;
  const parent = await messageTrace(t.messageId);
  if (!parent) return;
  const message = await db().message.findUnique({ where: { id: t.messageId }, select: { createdAt: true } });
  if (!message) return;
  recordSpan("ma2h.human_wait", {
    parent,
    startTime: message.createdAt,
    endTime: t.at,
    attributes: {
      "ma2h.message.id": t.messageId,
      "ma2h.resolution": t.resolution,
      // The kind only (`human`, `system`, `agent`): who, by name, is the audit log's.
      "ma2h.actor.kind": t.actor.split(":")[0] ?? "unknown",
      "ma2h.defaulted": t.defaulted,
    },
  });
}

/** `ma2h.push.attempt`: one attempt, already made. */
export async function recordPushAttempt(a: {
  messageId: string;
  attempt: number;
  outcome: string;
  status: number | null;
  errorClass: string | null;
  startedAt: Date;
  endedAt: Date;
}): Promise<void> {
  if (!tracer()) return;
  const parent = await messageTrace(a.messageId);
  if (!parent) return;
  recordSpan("ma2h.push.attempt", {
    parent,
    kind: SpanKind.CLIENT,
    startTime: a.startedAt,
    endTime: a.endedAt,
    attributes: {
      "ma2h.message.id": a.messageId,
      "ma2h.push.attempt": a.attempt,
      "ma2h.push.outcome": a.outcome,
      ...(a.status !== null ? { "http.response.status_code": a.status } : {}),
      ...(a.errorClass ? { "ma2h.push.error_class": a.errorClass } : {}),
    },
  });
}

/** `ma2h.delivery`: from the terminal transition to the answer reaching the agent (the first stamp). */
export async function recordDelivery(
  resolutionId: string,
  channel: "push" | "pull" | "mailbox",
  at: Date,
): Promise<void> {
  if (!tracer()) return;
  const r = await db().resolution.findUnique({
    where: { id: resolutionId },
    select: { messageId: true, resolvedAt: true },
  });
  if (!r) return;
  const parent = await messageTrace(r.messageId);
  if (!parent) return;
  recordSpan("ma2h.delivery", {
    parent,
    startTime: r.resolvedAt,
    endTime: at,
    attributes: { "ma2h.message.id": r.messageId, "ma2h.delivery.channel": channel },
  });
}

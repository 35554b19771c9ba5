/**
 * OpenTelemetry traces of the Hub's own work (docs/DEPLOYMENT.md, "Tracing"): on when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set (exported over OTLP/HTTP), off otherwise — and off, every
 * helper here returns at its first line, so the submit path pays one cached read.
 *
 * The provider is the Hub's own, not registered globally: the framework's spans and any library's
 * stay out of the export, and only what lib/telemetry/spans.ts names — with attributes from its
 * fixed list, never content — leaves the process. Contexts travel explicitly (W3C `traceparent`),
 * so no context manager is needed.
 *
 * The SDK (provider, processors, the OTLP exporter) loads in `startTracing()`, which the web and the
 * worker await before they serve: a Hub without an endpoint never loads it.
 */
import {
  type Attributes,
  type Context,
  type Link,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import type { SpanExporter, TracerProvider } from "@opentelemetry/sdk-trace";
import { env } from "../env";
import { log } from "../log";
import { processWide } from "../process-wide";
import { hubRelease } from "../release";

/** What a span may say: identifiers, outcomes and counts — never titles, bodies, answers, secrets. */
export interface SpanAttributes {
  "ma2h.message.id"?: string;
  "ma2h.message.type"?: "notify" | "ask" | "task";
  "ma2h.resolution"?: string;
  "ma2h.actor.kind"?: string;
  "ma2h.defaulted"?: boolean;
  "ma2h.replayed"?: boolean;
  "ma2h.error.code"?: string;
  "ma2h.push.attempt"?: number;
  "ma2h.push.outcome"?: string;
  "ma2h.push.error_class"?: string;
  "ma2h.delivery.channel"?: "push" | "pull" | "mailbox";
  "http.response.status_code"?: number;
}

interface Tracing {
  tracer: Tracer;
  provider: TracerProvider;
}

const slot = () => processWide("ma2h.telemetry.tracing", () => ({ tracing: null as Tracing | null }));

async function make(exporter: SpanExporter, batch: boolean): Promise<Tracing> {
  const [{ resourceFromAttributes }, { BatchSpanProcessor, SimpleSpanProcessor, TracerProvider }] = await Promise.all([
    import("@opentelemetry/resources"),
    import("@opentelemetry/sdk-trace"),
  ]);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      "service.name": env().OTEL_SERVICE_NAME ?? "ma2h-hub",
      "service.version": hubRelease().version,
    }),
    spanProcessors: [
      batch
        ? new BatchSpanProcessor({ exporter, scheduledDelayMillis: env().OTEL_BSP_SCHEDULE_DELAY })
        : new SimpleSpanProcessor({ exporter }),
    ],
  });
  return { provider, tracer: provider.getTracer("ma2h-hub", hubRelease().version) };
}

/**
 * Turns tracing on when an OTLP endpoint is configured (once per process; a second call does
 * nothing). The web and the worker await it before they serve, so every span of their work is made.
 */
export async function startTracing(): Promise<void> {
  const s = slot();
  if (s.tracing || !env().OTEL_EXPORTER_OTLP_ENDPOINT) return;
  const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
  s.tracing ??= await make(new OTLPTraceExporter(), true);
  log.info("tracing on: spans exported over OTLP/HTTP");
}

/** The Hub's tracer, or null when tracing is off (no OTLP endpoint, or `startTracing` not run). */
export function tracer(): Tracer | null {
  return slot().tracing?.tracer ?? null;
}

/** Sends spans to `exporter` as they end (tests); null turns tracing off again. */
export async function useSpanExporter(exporter: SpanExporter | null): Promise<void> {
  slot().tracing = exporter ? await make(exporter, false) : null;
}

/** Exports what is buffered (a process that ends, a test that reads). */
export async function flushTraces(): Promise<void> {
  await slot().tracing?.provider.forceFlush();
}

/** Stateless; made per use rather than kept at module level (test/module-state.test.ts). */
const propagator = () => new W3CTraceContextPropagator();
const headerGetter: TextMapGetter<Headers> = {
  keys: (h) => [...h.keys()],
  get: (h, key) => h.get(key) ?? undefined,
};

/** The caller's trace, from its `traceparent` / `tracestate` headers (ROOT when it sent none). */
export function incomingContext(headers: Headers): Context {
  return propagator().extract(ROOT_CONTEXT, headers, headerGetter);
}

/** A span's context as a W3C `traceparent`, to continue its trace later or in another process. */
export function traceparentOf(span: Span): string {
  const c = span.spanContext();
  return `00-${c.traceId}-${c.spanId}-0${(c.traceFlags & 1).toString(16)}`;
}

export function contextOf(traceparent: string): Context {
  return propagator().extract(
    ROOT_CONTEXT,
    { traceparent },
    {
      keys: (c) => Object.keys(c),
      get: (c, k) => c[k as "traceparent"],
    },
  );
}

export interface SpanOptions {
  parent?: Context;
  kind?: SpanKind;
  attributes?: SpanAttributes;
  startTime?: Date;
  links?: Link[];
}

function start(t: Tracer, name: string, opts: SpanOptions): Span {
  return t.startSpan(
    name,
    {
      kind: opts.kind ?? SpanKind.INTERNAL,
      attributes: opts.attributes as Attributes | undefined,
      startTime: opts.startTime,
      links: opts.links,
    },
    opts.parent ?? ROOT_CONTEXT,
  );
}

/**
 * Runs `fn` in a span named `name` (`ma2h.*`) and ends it; an error marks it (its §8.5 code, never
 * its message) and is thrown on. Off, `fn` runs with null and nothing else happens.
 */
export async function inSpan<T>(name: string, opts: SpanOptions, fn: (span: Span | null) => Promise<T>): Promise<T> {
  const t = tracer();
  if (!t) return fn(null);
  const span = start(t, name, opts);
  try {
    return await fn(span);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    span.setStatus({ code: SpanStatusCode.ERROR });
    if (typeof code === "string") span.setAttribute("ma2h.error.code", code);
    throw err;
  } finally {
    span.end();
  }
}

/** A span of work already done (the human wait, a delivery): from `start` to `end`, in one call. */
export function recordSpan(name: string, opts: SpanOptions & { startTime: Date; endTime: Date }): void {
  const t = tracer();
  if (!t) return;
  const span = start(t, name, opts);
  span.end(opts.endTime);
}

/** Sets attributes from the fixed list only. */
export function annotate(span: Span | null, attributes: SpanAttributes): void {
  if (span) span.setAttributes(attributes as Attributes);
}

export { SpanKind, trace };

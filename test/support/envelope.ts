/**
 * The one envelope factory of the tests, the e2e specs and the benchmarks: a valid MA2H message
 * envelope of a verb, with the few defaults that differ between them as options. No test-runner
 * imports, so vitest files, Playwright specs and plain scripts all import it.
 */

export type Verb = "notify" | "ask" | "task";

export interface EnvelopeDefaults {
  /** `ma2h_version` (default "0.5"). */
  version?: string;
  /** `created_at` (default the fixed 2026-12-01T12:00:00Z). */
  createdAt?: () => string;
  /** `agent.run_id` of the n-th envelope (default `run_<n>`). */
  runId?: (n: number) => string;
  /** `agent.project`, when set. */
  project?: string;
  /** `title` (default "<verb> number <n>"). */
  title?: (type: Verb, n: number) => string;
  /** Extra fields after the title (e.g. a benchmark's body). */
  extra?: Record<string, unknown>;
  /** The idempotency key of an ask or task (default unique per process, time and n). */
  idempotencyKey?: (n: number) => string;
  /** The verbs that carry an idempotency key (default ask and task). */
  keyedVerbs?: readonly Verb[];
  /** The default `request` of an ask (default a ship/hold select). */
  request?: Record<string, unknown>;
  /** The default `action` of a task (default one checklist item). */
  action?: Record<string, unknown>;
}

export type EnvelopeOverrides = Record<string, unknown>;

const SELECT = {
  mode: "select",
  options: [
    { value: "ship", label: "Ship" },
    { value: "hold", label: "Hold" },
  ],
};

/** The n-th envelope of a verb for `agentId` under `defaults`; `over` is merged on top. */
export function buildEnvelope(
  type: Verb,
  agentId: string,
  n: number,
  defaults: EnvelopeDefaults = {},
  over: EnvelopeOverrides = {},
): Record<string, unknown> {
  const agent: Record<string, unknown> = {
    id: agentId,
    run_id: defaults.runId ? defaults.runId(n) : `run_${n}`,
    runtime: "cli",
  };
  if (defaults.project !== undefined) agent.project = defaults.project;
  const base: Record<string, unknown> = {
    ma2h_version: defaults.version ?? "0.5",
    type,
    created_at: defaults.createdAt ? defaults.createdAt() : "2026-12-01T12:00:00Z",
    agent,
    title: defaults.title ? defaults.title(type, n) : `${type} number ${n}`,
    ...defaults.extra,
  };
  if ((defaults.keyedVerbs ?? ["ask", "task"]).includes(type))
    base.idempotency_key = defaults.idempotencyKey
      ? defaults.idempotencyKey(n)
      : `key-${process.pid}-${Date.now()}-${n}`;
  // A fresh copy each time: a test may change its envelope's request or action in place.
  if (type === "ask") base.request = structuredClone(defaults.request ?? SELECT);
  if (type === "task")
    base.action = structuredClone(
      defaults.action ?? { instructions: "Rotate the key", checklist: [{ text: "rotate", done: false }] },
    );
  return { ...base, ...over };
}

/** An `envelope(type, agentId, over)` with its own counter and these defaults. */
export function envelopeFactory(
  defaults: EnvelopeDefaults = {},
): (type: Verb, agentId: string, over?: EnvelopeOverrides) => Record<string, unknown> {
  let seq = 0;
  return (type, agentId, over = {}) => {
    seq += 1;
    return buildEnvelope(type, agentId, seq, defaults, over);
  };
}

/** The tests' envelope: v0.5, fixed `created_at`, a ship/hold select for an ask, unique keys. */
export const envelope = envelopeFactory();

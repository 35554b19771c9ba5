/**
 * One fuzz run against a running Hub: a warm-up, then `runs` cases from `seed`, each sent and
 * judged (./oracle.ts); the web process must stay up and its RSS within the budget of its value
 * after the warm-up. fast-check drives it, so a failure is reported with the seed and path that
 * replay it (and shrunk to a smaller case).
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describeCase, type FuzzCase, type FuzzContext, fuzzCase, requestBytes } from "./cases";
import { judge } from "./oracle";
import { sendRaw } from "./send";

export interface FuzzOptions {
  baseUrl: string;
  context: FuzzContext;
  seed: number;
  runs: number;
  /** Cases before the RSS reference is taken (from a seed of their own). */
  warmup: number;
  /** A fast-check path, to replay one failure. */
  path?: string;
  /** The web process, watched for exits and measured. */
  pid?: number;
  rssBudgetMiB?: number;
  timeoutMs?: number;
  /** Called every `progressEvery` cases. */
  onProgress?: (done: number, report: FuzzReport) => void;
  progressEvery?: number;
}

export interface FuzzFailure {
  reason: string;
  case: string;
  seed: number;
  path: string;
}

export interface FuzzReport {
  seed: number;
  runs: number;
  /** Requests sent, warm-up and shrinking included. */
  sent: number;
  byFamily: Record<string, number>;
  byStatus: Record<string, number>;
  failure: FuzzFailure | null;
  /** RSS in MiB: after warm-up, at the end, and the highest sample. */
  rss: { warm: number; end: number; peak: number; budget: number } | null;
  seconds: number;
}

export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const started = Date.now();
  const url = new URL(options.baseUrl);
  const timeoutMs = options.timeoutMs ?? 15_000;
  const report: FuzzReport = {
    seed: options.seed,
    runs: options.runs,
    sent: 0,
    byFamily: {},
    byStatus: {},
    failure: null,
    rss: null,
    seconds: 0,
  };
  let lastReason = "";
  let peak = 0;

  const sendCase = async (c: FuzzCase): Promise<string | null> => {
    const { bytes, halfClose } = requestBytes(c, url.host);
    const outcome = await sendRaw(bytes, { host: url.hostname, port: Number(url.port), timeoutMs, halfClose });
    report.sent++;
    report.byFamily[c.family] = (report.byFamily[c.family] ?? 0) + 1;
    const status = outcome.ok ? String(outcome.response.status) : `no response: ${outcome.error}`;
    report.byStatus[status] = (report.byStatus[status] ?? 0) + 1;
    let reason = judge(c.target, outcome, { method: c.method, hangUp: c.hangUp === true });
    if (!reason && options.pid !== undefined && !alive(options.pid)) reason = "the web process exited";
    if (options.pid !== undefined && report.sent % 250 === 0 && alive(options.pid))
      peak = Math.max(peak, rssMiB(options.pid));
    return reason;
  };

  const property = fc.asyncProperty(fuzzCase(options.context), async (c) => {
    const reason = await sendCase(c);
    if (reason) lastReason = `${reason} — ${describeCase(c)}`;
    const done = report.sent;
    if (options.onProgress && done % (options.progressEvery ?? 10_000) === 0) options.onProgress(done, report);
    return reason === null;
  });

  const check = async (seed: number, runs: number, path?: string) => {
    const details = await fc.check(property, { seed, numRuns: runs, path, endOnFailure: false });
    if (details.failed) {
      report.failure = {
        reason: lastReason,
        case: details.counterexample ? describeCase(details.counterexample[0]) : "(none)",
        seed: details.seed,
        path: details.counterexamplePath ?? "",
      };
    }
    return !details.failed;
  };

  if (!options.path && options.warmup > 0) await check(options.seed ^ 0x5eed, options.warmup);
  const warm = options.pid !== undefined ? rssMiB(options.pid) : 0;
  peak = warm;
  if (!report.failure) await check(options.seed, options.runs, options.path);
  if (options.pid !== undefined && alive(options.pid)) {
    const end = rssMiB(options.pid);
    peak = Math.max(peak, end);
    report.rss = { warm, end, peak, budget: options.rssBudgetMiB ?? 50 };
    if (!report.failure && end - warm > report.rss.budget) {
      report.failure = {
        reason: `the web process's RSS grew ${(end - warm).toFixed(1)} MiB after warm-up (budget ${report.rss.budget})`,
        case: "(the whole run)",
        seed: options.seed,
        path: "",
      };
    }
  } else if (options.pid !== undefined && !report.failure) {
    report.failure = { reason: "the web process exited", case: "(the whole run)", seed: options.seed, path: "" };
  }
  report.seconds = (Date.now() - started) / 1000;
  return report;
}

/** The counts and the verdict as printed lines. */
export function formatReport(r: FuzzReport): string[] {
  const lines = [
    `seed ${r.seed}: ${r.runs} cases, ${r.sent} requests sent (warm-up included) in ${r.seconds.toFixed(1)} s`,
    `by route family: ${Object.entries(r.byFamily)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
    `by status: ${Object.entries(r.byStatus)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ×${v}`)
      .join(", ")}`,
  ];
  if (r.rss)
    lines.push(
      `web RSS: ${r.rss.warm.toFixed(1)} MiB after warm-up, ${r.rss.end.toFixed(1)} MiB at the end (+${(r.rss.end - r.rss.warm).toFixed(1)}, budget +${r.rss.budget}), peak ${r.rss.peak.toFixed(1)} MiB`,
    );
  if (r.failure) {
    lines.push(`FAILED: ${r.failure.reason}`);
    lines.push(`shrunk case: ${r.failure.case}`);
    lines.push(`replay: npm run fuzz -- --seed ${r.failure.seed}${r.failure.path ? ` --path ${r.failure.path}` : ""}`);
  } else lines.push("passed: no status ≥ 500, every /v1 and /.well-known 4xx a §8.5 envelope, the web process up");
  return lines;
}

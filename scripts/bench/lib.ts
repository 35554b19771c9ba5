/**
 * Shared pieces of the benchmark scripts (scripts/bench-*.ts): start the built web process with
 * its log going to a file (as a deployment's would), a closed-loop HTTP load driver with a fixed
 * concurrency over keep-alive connections, and percentile summaries. Loopback only; every phase is
 * bounded in time. Figures are printed, never asserted.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import { cpus, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { nodeArgs as launcherArgs } from "../../bin/launcher.mjs";
import { freePort, hubEnv, repoRoot } from "../../test/support/hub";
import { buildEnvelope } from "../../test/support/envelope";

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface WebProcess {
  pid: number;
  port: number;
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** The real web process (built Next app behind server/web.ts), dev mode on loopback, log to a file. */
export async function startWeb(
  databaseUrl: string,
  env: Record<string, string | undefined>,
  logFile: string,
  entry = "server/web.ts",
  nodeArgs: string[] = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean),
): Promise<WebProcess> {
  const port = await freePort();
  const fd = openSync(logFile, "a");
  // The web as `npm run web` starts it: its ahead-of-time bundle when fresh (bin/launcher.mjs).
  const args = entry === "server/web.ts" ? launcherArgs("web") : ["--import", "tsx", resolve(repoRoot, entry)];
  const child = spawn(process.execPath, [...nodeArgs, ...args], {
    cwd: repoRoot,
    env: hubEnv(databaseUrl, port, env),
    detached: true,
    stdio: ["ignore", fd, fd],
  });
  closeSync(fd);
  const exited = new Promise<void>((ok) => child.on("exit", () => ok()));
  const web: WebProcess = {
    pid: child.pid as number,
    port,
    url: `http://127.0.0.1:${port}`,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-(child.pid as number), "SIGTERM");
      } catch {
        /* gone */
      }
      await Promise.race([exited, sleep(15_000)]);
    },
  };
  if (entry === "server/web.ts") {
    const deadline = Date.now() + 120_000;
    for (;;) {
      try {
        if ((await fetch(`${web.url}/.well-known/ma2h`)).ok) break;
      } catch {
        /* not yet */
      }
      if (child.exitCode !== null) throw new Error(`web exited early; see ${logFile}`);
      if (Date.now() > deadline) throw new Error(`web not ready; see ${logFile}`);
      await sleep(200);
    }
  }
  return web;
}

export interface Target {
  host: string;
  port: number;
}

export interface RequestSpec {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Its latency is also kept under this tag (DriveResult.byTag), e.g. the verb of a mixed phase. */
  tag?: string;
}

export interface DriveResult {
  seconds: number;
  ok: number;
  statuses: Record<string, number>;
  /** Latency of each counted (ok) response, ms. */
  latencies: number[];
  /** The same latencies by the request's `tag`, for requests that carried one. */
  byTag: Record<string, number[]>;
  /** CPU time the `cpuPids` processes used during the measured window, ms (contention-independent). */
  cpuMs?: number;
  /** CPU time of the PostgreSQL backends serving `pgDatabase` during the window, ms. */
  pgCpuMs?: number;
}

/** One request over a keep-alive agent; resolves with the status code (0 on a socket error). */
export function send(agent: http.Agent, target: Target, spec: RequestSpec): Promise<{ status: number; body: string }> {
  return new Promise((ok) => {
    const req = http.request(
      {
        host: target.host,
        port: target.port,
        method: spec.method,
        path: spec.path,
        agent,
        headers:
          spec.body === undefined ? spec.headers : { ...spec.headers, "content-length": Buffer.byteLength(spec.body) },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (body += d));
        res.on("end", () => ok({ status: res.statusCode ?? 0, body }));
        res.on("error", () => ok({ status: 0, body }));
      },
    );
    req.on("error", () => ok({ status: 0, body: "" }));
    req.end(spec.body);
  });
}

/**
 * Closed loop: `concurrency` workers, each sending its next request as soon as the previous one
 * answered, for `seconds` after a `warmupSeconds` that is not counted. Worker i talks to
 * targets[i % targets.length]. Only responses with status `okStatus` are counted and timed.
 */
export async function drive(options: {
  targets: Target[];
  concurrency: number;
  seconds: number;
  warmupSeconds?: number;
  okStatus: number;
  request: (worker: number, seq: number) => RequestSpec;
  /** Server processes whose CPU time to measure over the counted window. */
  cpuPids?: number[];
  /** Also measure the CPU of the PostgreSQL backends serving this database. */
  pgDatabase?: string;
}): Promise<DriveResult> {
  const agents = options.targets.map(() => new http.Agent({ keepAlive: true, maxSockets: options.concurrency }));
  const warmupEnd = Date.now() + (options.warmupSeconds ?? 3) * 1000;
  const end = warmupEnd + options.seconds * 1000;
  const result: DriveResult = { seconds: options.seconds, ok: 0, statuses: {}, latencies: [], byTag: {} };
  let seq = 0;
  const meter = cpuMeter(options.cpuPids ?? [], options.pgDatabase);
  const cpuMark = setTimeout(() => meter.start(), Math.max(0, warmupEnd - Date.now()));
  const cpuEndMark = setTimeout(() => meter.stop(), Math.max(0, end - Date.now()));
  const worker = async (w: number) => {
    const t = w % options.targets.length;
    for (;;) {
      const started = Date.now();
      if (started >= end) return;
      const spec = options.request(w, seq++);
      const t0 = performance.now();
      const res = await send(agents[t]!, options.targets[t]!, spec);
      const ms = performance.now() - t0;
      if (started < warmupEnd) continue;
      if (Date.now() > end) return; // straddles the end: not counted
      result.statuses[res.status] = (result.statuses[res.status] ?? 0) + 1;
      if (res.status === options.okStatus) {
        result.ok++;
        result.latencies.push(ms);
        if (spec.tag !== undefined) {
          const byTag = result.byTag[spec.tag] ?? [];
          byTag.push(ms);
          result.byTag[spec.tag] = byTag;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, (_, w) => worker(w)));
  clearTimeout(cpuMark);
  clearTimeout(cpuEndMark);
  Object.assign(result, meter.read());
  for (const a of agents) a.destroy();
  return result;
}

/**
 * CPU time, in ms, that the `pids` processes and the PostgreSQL backends serving `pgDatabase` used
 * between start() and stop() (or read(), when stop() was never called). Each figure is present only
 * when something was asked to be measured.
 */
export function cpuMeter(pids: number[], pgDatabase?: string) {
  const ticks = () => pids.reduce((sum, pid) => sum + cpuTicks(pid), 0);
  let cpuStart = 0;
  let cpuEnd = 0;
  let pgStart = new Map<number, number>();
  let pgEnd: Map<number, number> | null = null;
  return {
    start(): void {
      cpuStart = ticks();
      if (pgDatabase) pgStart = backendTicks(pgDatabase);
    },
    stop(): void {
      cpuEnd = ticks();
      if (pgDatabase) pgEnd = backendTicks(pgDatabase);
    },
    read(): { cpuMs?: number; pgCpuMs?: number } {
      const out: { cpuMs?: number; pgCpuMs?: number } = {};
      if (pids.length) out.cpuMs = ((cpuEnd || ticks()) - cpuStart) * (1000 / CLOCK_TICKS_PER_SECOND);
      if (pgDatabase) {
        let sum = 0;
        for (const [pid, t] of pgEnd ?? backendTicks(pgDatabase)) sum += t - (pgStart.get(pid) ?? 0);
        out.pgCpuMs = sum * (1000 / CLOCK_TICKS_PER_SECOND);
      }
      return out;
    },
  };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

export interface Summary {
  /** Server CPU per counted request, ms (when measured). */
  cpuPerReq?: number;
  /** PostgreSQL backend CPU per counted request, ms (when measured). */
  pgCpuPerReq?: number;
  rps: number;
  p50: number;
  p99: number;
  ok: number;
  statuses: Record<string, number>;
  /** p50/p99 and count of each request tag (DriveResult.byTag), when requests carried tags. */
  byTag: Record<string, { p50: number; p99: number; ok: number }>;
}

export function summarize(r: DriveResult): Summary {
  return {
    rps: r.ok / r.seconds,
    p50: percentile(r.latencies, 50),
    p99: percentile(r.latencies, 99),
    ok: r.ok,
    statuses: r.statuses,
    byTag: Object.fromEntries(
      Object.entries(r.byTag).map(([tag, l]) => [
        tag,
        { p50: percentile(l, 50), p99: percentile(l, 99), ok: l.length },
      ]),
    ),
    ...(r.cpuMs !== undefined && r.ok > 0 ? { cpuPerReq: r.cpuMs / r.ok } : {}),
    ...(r.pgCpuMs !== undefined && r.ok > 0 ? { pgCpuPerReq: r.pgCpuMs / r.ok } : {}),
  };
}

export function fmt(s: Summary): string {
  const cpu =
    (s.cpuPerReq === undefined ? "" : `   server CPU ${s.cpuPerReq.toFixed(2)} ms/req`) +
    (s.pgCpuPerReq === undefined ? "" : ` + PostgreSQL ${s.pgCpuPerReq.toFixed(2)} ms/req`);
  return `${s.rps.toFixed(0).padStart(6)} req/s   p50 ${s.p50.toFixed(1).padStart(7)} ms   p99 ${s.p99.toFixed(1).padStart(7)} ms${cpu}   (${s.ok} × 202; statuses ${JSON.stringify(s.statuses)})`;
}

export function machine(): string {
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  return `${cpus().length} cores (${cpu.trim()}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}, ${new Date().toISOString()}`;
}

/** Resident set size of a process, from /proc/<pid>/status, in MiB. */
export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** CPU ticks of each PostgreSQL backend connected to `database` (its process title names it). */
export function backendTicks(database: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (cmd.startsWith("postgres: ") && cmd.includes(` ${database} `)) out.set(pid, cpuTicks(pid));
    } catch {
      /* gone */
    }
  }
  return out;
}

/** Linux USER_HZ: /proc reports CPU time in these ticks. */
const CLOCK_TICKS_PER_SECOND = 100;

/** CPU time (user + system) a process has used so far, in clock ticks. */
export function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

/** Where the benchmark processes write their logs (outside the repo). */
export function logDir(): string {
  const dir = join(tmpdir(), "ma2h-bench");
  mkdirSync(dir, { recursive: true });
  return dir;
}

export interface BaselineProcess {
  pid: number;
  target: Target;
  stop(): void;
}

/**
 * The bare node:http floor (scripts/bench/baseline-server.ts) on the same database, log to
 * `logName` under logDir(); resolves once it answers.
 */
export async function startBaseline(databaseUrl: string, logName = "baseline.log"): Promise<BaselineProcess> {
  const port = await freePort();
  const fd = openSync(join(logDir(), logName), "w");
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(repoRoot, "scripts/bench/baseline-server.ts"), databaseUrl, String(port)],
    {
      stdio: ["ignore", fd, fd],
    },
  );
  closeSync(fd);
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "{}" });
      break;
    } catch {
      await sleep(100);
    }
  }
  return { pid: child.pid as number, target: { host: "127.0.0.1", port }, stop: () => void child.kill("SIGTERM") };
}

/**
 * Resolves once a process has been idle (at most 2 ticks of CPU per 500 ms) for `quietMs`, or
 * after `maxMs` (then false): a web with every parked request registered and waiting.
 */
export async function untilIdle(pid: number, quietMs = 2000, maxMs = 150_000): Promise<boolean> {
  const start = Date.now();
  let idleSince = 0;
  let ticks = cpuTicks(pid);
  for (;;) {
    await sleep(500);
    const now = cpuTicks(pid);
    if (now - ticks > 2) idleSince = 0;
    else idleSince ||= Date.now();
    ticks = now;
    if (idleSince && Date.now() - idleSince >= quietMs) return true;
    if (Date.now() - start > maxMs) return false;
  }
}

export interface LongPollResult {
  status: number;
  body: string;
  /** performance.now() when the answer that ended the poll arrived. */
  answeredAt: number;
  polls: number;
  /** Connection errors retried on the way. */
  errors: number;
}

/**
 * A long-poll GET as an agent runs it: on `agent`'s connections, polling again while `again` says
 * the answer is still "nothing yet" and after a connection error (100 ms later). `onParked` fires
 * when the first request's connection is established.
 */
export function longPoll(
  target: Target,
  path: string,
  key: string,
  agent: http.Agent,
  again: (status: number, body: string) => boolean,
  onParked?: () => void,
): Promise<LongPollResult> {
  return new Promise((done) => {
    const r: LongPollResult = { status: 0, body: "", answeredAt: 0, polls: 0, errors: 0 };
    const poll = () => {
      r.polls++;
      const req = http.request(
        { host: target.host, port: target.port, path, headers: { authorization: `Bearer ${key}` }, agent },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (d: string) => (body += d));
          res.on("end", () => {
            if (again(res.statusCode ?? 0, body)) return poll();
            Object.assign(r, { status: res.statusCode ?? 0, body, answeredAt: performance.now() });
            done(r);
          });
        },
      );
      // A connection the kernel dropped under a full accept queue never answers: give up and retry.
      req.setTimeout(75_000, () => req.destroy(new Error("client timeout")));
      req.on("error", () => {
        r.errors++;
        setTimeout(poll, 100);
      });
      req.end();
      if (r.polls === 1 && onParked) req.on("socket", (s) => s.once("connect", onParked));
    };
    poll();
  });
}

/** A plain envelope for the benchmarks: `notify` or `ask`, each ask with its own idempotency key. */
export function benchEnvelope(type: "notify" | "ask", agentId: string, seq: number, runTag: string): string {
  const body = buildEnvelope(type, agentId, seq, {
    runId: () => `run_${runTag}`,
    title: (verb, n) => `${verb} ${n}`,
    extra: { body: "Benchmark message: a short markdown body of typical size for a deploy approval." },
    keyedVerbs: ["ask"],
    idempotencyKey: (n) => `bench-${runTag}-${n}`,
  });
  return JSON.stringify(body);
}

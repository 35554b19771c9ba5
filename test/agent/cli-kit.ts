/**
 * Runs the BUILT `ma2h` command (packages/agent/dist/cli.js, from `npm run build`) as a child
 * process, with only the environment a test gives it (plus PATH), so nothing of this process leaks
 * in: every run names its own store directory.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { repoRoot } from "../support/hub";

export const CLI = resolve(repoRoot, "packages/agent/dist/cli.js");

export type Env = Record<string, string | undefined>;

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `re` in stderr (progress notes name the message id). */
  stderrMatch(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves once stdout holds at least `n` lines. */
  lines(n: number, timeoutMs?: number): Promise<string[]>;
  done: Promise<Run>;
}

export const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), `ma2h-${prefix}-`));

export function start(args: string[], env: Env, input?: string | Buffer, cwd = repoRoot): Running {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd,
    env: { PATH: process.env.PATH, NODE_ENV: "production", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  const wakers = new Set<() => void>();
  const wake = () => {
    for (const w of [...wakers]) w();
  };
  child.stdout?.on("data", (d: Buffer) => {
    out += d.toString();
    wake();
  });
  child.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
    wake();
  });
  const done = new Promise<Run>((ok) =>
    child.on("close", (code) => {
      wake();
      ok({ code, stdout: out, stderr: err });
    }),
  );
  if (input !== undefined) child.stdin?.end(input);
  else child.stdin?.end();
  const until = <T>(probe: () => T | undefined, what: string, timeoutMs: number) =>
    new Promise<T>((ok, fail) => {
      const check = () => {
        const got = probe();
        if (got !== undefined) {
          wakers.delete(check);
          clearTimeout(timer);
          ok(got);
        } else if (child.exitCode !== null || child.signalCode !== null) {
          wakers.delete(check);
          clearTimeout(timer);
          fail(new Error(`ma2h ${args.join(" ")} exited before ${what}:\n${out}\n${err}`));
        }
      };
      const timer = setTimeout(() => {
        wakers.delete(check);
        fail(new Error(`no ${what} from ma2h ${args.join(" ")} within ${timeoutMs} ms:\n${out}\n${err}`));
      }, timeoutMs);
      wakers.add(check);
      check();
    });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    stderrMatch: (re, timeoutMs = 20_000) => until(() => err.match(re) ?? undefined, `stderr ${re}`, timeoutMs),
    lines: (n, timeoutMs = 20_000) =>
      until(
        () => {
          const lines = out.split("\n").filter((l) => l !== "");
          return lines.length >= n && out.endsWith("\n") ? lines : undefined;
        },
        `${n} stdout line(s)`,
        timeoutMs,
      ),
    done,
  };
}

export function ma2h(args: string[], env: Env, input?: string | Buffer): Promise<Run> {
  return start(args, env, input).done;
}

/** The one stderr line of a failed run, split into its code and message. */
export function errorLine(run: Run): { code: string; message: string } {
  const lines = run.stderr.split("\n").filter((l) => l !== "");
  const last = lines[lines.length - 1] ?? "";
  const m = /^ma2h: ([a-z_]+): (.+)$/u.exec(last);
  if (!m) throw new Error(`not an error line: ${JSON.stringify(run.stderr)}`);
  return { code: m[1] as string, message: m[2] as string };
}

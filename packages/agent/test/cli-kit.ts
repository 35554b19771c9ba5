/**
 * Runs the BUILT `ma2h` command (packages/agent/dist/cli.js, from `npm run build`) as a child
 * process, with only the environment a test gives it (plus PATH), so nothing of this process leaks
 * in: every run names its own store directory.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { repoRoot } from "../../../test/support/hub";
import { watchProcess } from "../../../test/support/watched-process";

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
  const p = watchProcess(process.execPath, [CLI, ...args], {
    cwd,
    env: { PATH: process.env.PATH, NODE_ENV: "production", ...env },
    input,
    label: `ma2h ${args.join(" ")}`,
  });
  return {
    child: p.child,
    stdout: p.stdout,
    stderr: p.stderr,
    stderrMatch: (re, timeoutMs = 20_000) => p.until((_, err) => err.match(re), `stderr ${re}`, timeoutMs),
    lines: (n, timeoutMs = 20_000) =>
      p.until(
        (out) => {
          const lines = out.split("\n").filter((l) => l !== "");
          return lines.length >= n && out.endsWith("\n") ? lines : undefined;
        },
        `${n} stdout line(s)`,
        timeoutMs,
      ),
    done: p.done.then(({ code, stdout, stderr }) => ({ code, stdout, stderr })),
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

/**
 * A child process whose output a test can wait on: stdout and stderr are collected, `until(probe)`
 * resolves with the first non-null result of `probe(stdout, stderr)` (re-checked on every chunk) and
 * rejects when the process ends first or the time runs out; `done` has the exit.
 */
import { type ChildProcess, spawn } from "node:child_process";

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface WatchedProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  until<T>(probe: (out: string, err: string) => T | undefined | null, what: string, timeoutMs?: number): Promise<T>;
  done: Promise<Exit>;
}

export function watchProcess(
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd: string; input?: string | Buffer; label?: string },
): WatchedProcess {
  const label = options.label ?? args.join(" ");
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  let ended = false;
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
  const done = new Promise<Exit>((ok) =>
    child.on("close", (code, signal) => {
      ended = true;
      wake();
      ok({ code, signal, stdout: out, stderr: err });
    }),
  );
  child.stdin?.on("error", () => {}); // a process that exits before reading its stdin
  child.stdin?.end(options.input);
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    until: (probe, what, timeoutMs = 20_000) =>
      new Promise((ok, fail) => {
        const check = () => {
          const got = probe(out, err);
          if (got !== undefined && got !== null) {
            wakers.delete(check);
            clearTimeout(timer);
            ok(got);
          } else if (ended) {
            wakers.delete(check);
            clearTimeout(timer);
            fail(new Error(`${label} ended before ${what}:\n${out}\n${err}`));
          }
        };
        const timer = setTimeout(() => {
          wakers.delete(check);
          fail(new Error(`no ${what} from ${label} within ${timeoutMs} ms:\n${out}\n${err}`));
        }, timeoutMs);
        wakers.add(check);
        check();
      }),
    done,
  };
}

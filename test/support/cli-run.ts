/**
 * Runs the admin CLI (`bin/ma2h-hub.js`, its bundle while fresh) as the operator would, against a
 * test database: its exit code, stdout, stderr, and stdout parsed when `--json` was asked for. For
 * what only the real binary shows (exit status as the OS sees it, the process's stdin and
 * environment, runs racing as separate processes); a command's own behaviour is tested in-process
 * (./cli-in-process.ts), which answers in the same shape.
 */
import { execFile } from "node:child_process";
import { repoRoot, TEST_AUTH_SECRET } from "./hub";

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  json: Record<string, any>;
}

/** A finished run in the shape both runners answer: stdout parsed when `--json` was asked for. */
export function cliResult(args: string[], code: number | null, stdout: string, stderr: string): CliRun {
  let json: Record<string, any> = {};
  try {
    json = args.includes("--json") ? JSON.parse(stdout) : {};
  } catch {
    json = { unparseable: stdout };
  }
  return { code, stdout, stderr, json };
}

export interface CliOptions {
  databaseUrl: string;
  /** Written to its stdin (for a file named `-`); stdin is closed either way. */
  input?: string;
  env?: Record<string, string>;
}

export function runCli(args: string[], { databaseUrl, input, env = {} }: CliOptions): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ["bin/ma2h-hub.js", ...args],
      {
        cwd: repoRoot,
        env: { ...process.env, DATABASE_URL: databaseUrl, AUTH_SECRET: TEST_AUTH_SECRET, ...env },
        timeout: 60_000,
      },
      (err, stdout, stderr) => {
        const code = err ? ((err as { code?: number }).code ?? 1) : 0;
        resolve(cliResult(args, code, stdout, stderr));
      },
    );
    child.stdin?.end(input ?? "");
  });
}

/**
 * Runs the admin CLI (`bin/ma2h-hub.js`, its bundle while fresh) as the operator would, against a
 * test database: its exit code, stdout, stderr, and stdout parsed when `--json` was asked for.
 */
import { execFile } from "node:child_process";
import { repoRoot, TEST_AUTH_SECRET } from "./hub";

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  json: Record<string, any>;
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
        let json: Record<string, any> = {};
        try {
          json = args.includes("--json") ? JSON.parse(stdout) : {};
        } catch {
          json = { unparseable: stdout };
        }
        resolve({ code, stdout, stderr, json });
      },
    );
    child.stdin?.end(input ?? "");
  });
}

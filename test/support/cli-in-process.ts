/**
 * Runs an admin CLI command line in this test process (cli/command-line.ts, `runCommandLine`, the
 * function the binary calls): the same arguments, output, exit code and `CliRun` shape as the binary
 * (./cli-run.ts) at a fraction of the cost — no Node process to start, no Prisma client to load per
 * run. It works on the database this process's lib/ points at: call `useTestDatabase()` (or
 * `useHubFixture({ server: "none" })`) first, which also sets the AUTH_SECRET lib/env seals with. The
 * process's environment is the test's, so a run cannot be given its own; that, stdin as a stream and
 * the exit status as the OS sees it are the binary's tests (test/cli-binary.test.ts).
 */
import { runCommandLine } from "../../cli/command-line";
import { type CliRun, cliResult } from "./cli-run";

export interface InProcessOptions {
  /** What the command reads as stdin (for `--secret -` or a file named `-`); empty when not given. */
  input?: string;
}

export async function cliInProcess(args: string[], { input = "" }: InProcessOptions = {}): Promise<CliRun> {
  if (!process.env.DATABASE_URL || !process.env.AUTH_SECRET)
    throw new Error("cliInProcess needs this process pointed at a test database: call useTestDatabase() first");
  let stdout = "";
  let stderr = "";
  const code = await runCommandLine(args, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    stdin: async () => input,
  });
  return cliResult(args, code, stdout, stderr);
}

/**
 * `ma2h-hub`: the admin CLI. Runs via bin/ma2h-hub.js. The command line itself is
 * cli/command-line.ts (`runCommandLine`); this is the process around it: the process's arguments and
 * streams, the notice when the sources run, the embedded database's environment, closing what a
 * command opened, and the exit. Concurrency is settled by the database's unique constraints, so it is
 * safe beside a running Hub and other CLI runs.
 */
import v8 from "node:v8";
import { root, runningCode } from "../bin/launcher.mjs";
import { applyEmbeddedEnvFromDisk } from "../server/embedded-env";
import { hasProcessWide } from "../lib/process-wide";
import { type CommandLineIo, runCommandLine } from "./command-line";

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const processIo: CommandLineIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stdin: readStdin,
};

async function main(): Promise<number> {
  // Prisma's query compiler is WebAssembly: V8's optimising tier would recompile it in the background
  // and hold the exit until that is done (a second on a busy box). A short-lived CLI runs it on the
  // baseline compiler only; set before the first query compiles the module (docs/decisions/operations-and-performance.md, "`ma2h-hub` loads only what a command needs").
  v8.setFlagsFromString("--liftoff-only");
  // A notice (stderr: stdout stays the command's answer) when the slower sources run (bin/launcher.mjs).
  const running = runningCode("ma2h-hub");
  if (running.code === "source")
    process.stderr.write(
      `ma2h-hub: running the TypeScript sources (${running.reason}); npm run build:node compiles them\n`,
    );
  // Beside a zero-setup Hub (no DATABASE_URL), talk to its embedded database under ./.data/.
  applyEmbeddedEnvFromDisk(root);
  try {
    return await runCommandLine(process.argv.slice(2), processIo);
  } finally {
    // A redrive enqueues its first attempt (lib/delivery/admin.ts); close that queue connection too.
    // Only what a command opened, loaded only then: `--help` loads neither Prisma nor BullMQ, and
    // closing the pool (and the Prisma client, if one was made) loads no Prisma (lib/db-pool.ts).
    await Promise.allSettled([
      hasProcessWide("ma2h.queues") ? import("../lib/queue/producer").then((m) => m.closeProducers()) : undefined,
      hasProcessWide("ma2h.db") ? import("../lib/db-pool").then((m) => m.closeDb()) : undefined,
    ]);
  }
}

main().then((code) => {
  process.exitCode = code;
  // Everything is closed and written: exit once stdout has taken the output rather than wait on a
  // stray handle — a closed database socket lingers until the server's backend ends, a second on a
  // busy box.
  process.stdout.write("", () => process.exit(code));
});

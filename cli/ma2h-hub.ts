/**
 * `ma2h-hub`: the admin CLI. Runs via bin/ma2h-hub.js. With `--json`, stdout carries
 * exactly one JSON object — the result, or `{"error":{"code","message"}}` with a non-zero exit (2 for
 * usage errors); everything else goes to stderr. Concurrency is settled by the database's unique
 * constraints, so it is safe beside a running Hub and other CLI runs.
 */
import { parseArgs } from "node:util";
import v8 from "node:v8";
import { root, runningCode } from "../bin/launcher.mjs";
import { applyEmbeddedEnvFromDisk } from "../server/embedded-env";
import { hasProcessWide } from "../lib/process-wide";
import { isHubError } from "@ma2h/protocol/errors";
import { HUB_VERSION } from "@ma2h/protocol/versions";
import { hubRelease } from "../lib/release";
import { usageError, type Flags, type ListFlags, type Output } from "./command";
import { COMMANDS, USAGE } from "./commands";

const STRING_FLAGS = [
  "account",
  "handle",
  "role",
  "user",
  "agent",
  "origin",
  "path-prefix",
  "secret-ref",
  "secret",
  "message",
  "from-env",
  "file",
  "keys",
  "anchor",
  "confirm",
  "agent-session-visibility",
  "inter-agent",
  "email-answer-sensitive-without-sign-in",
  "allow",
  "from",
  "description",
  "set",
  "out",
];
/**
 * Flags that may be given several times, each value kept in order (`ListFlags`). A plain string flag
 * given twice keeps its last value (node:util parseArgs), so a flag that means a list must be here.
 */
const LIST_FLAGS = ["sponsor", "add", "remove"];
/** Flags without a value; a given one reads as "true" in `Flags`. */
const BOOLEAN_FLAGS = ["any", "allow-unsealed", "all", "dry-run"];

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "V" },
      ...Object.fromEntries(STRING_FLAGS.map((n) => [n, { type: "string" as const }])),
      ...Object.fromEntries(BOOLEAN_FLAGS.map((n) => [n, { type: "boolean" as const }])),
      ...Object.fromEntries(LIST_FLAGS.map((n) => [n, { type: "string" as const, multiple: true as const }])),
    },
  });
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

/** `ma2h-hub --version`: the Hub's release and the protocol version it speaks; opens nothing. */
function versionOutput(): Output {
  const { version, commit } = hubRelease();
  return {
    json: { version, commit, ma2h_version: HUB_VERSION },
    text: `ma2h-hub ${version} (commit ${commit === "unknown" ? commit : commit.slice(0, 12)}; MA2H ${HUB_VERSION})`,
  };
}

async function run(argv: string[]): Promise<Output | "help"> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    throw usageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return "help";
  if (values.version) return versionOutput();
  const [group, verb, ...args] = positionals;
  const command = COMMANDS[`${group ?? ""} ${verb ?? ""}`];
  if (!command) throw usageError(group ? `unknown command: ${positionals.slice(0, 2).join(" ")}` : "no command given");
  if (command.variadic ? args.length < command.args : args.length !== command.args)
    throw usageError(`usage: ma2h-hub ${command.usage}`);
  const flags: Flags = {};
  const lists: ListFlags = {};
  const given = values as Record<string, unknown>;
  for (const name of STRING_FLAGS) if (typeof given[name] === "string") flags[name] = given[name] as string;
  for (const name of BOOLEAN_FLAGS) if (given[name] === true) flags[name] = "true";
  for (const name of LIST_FLAGS) if (Array.isArray(given[name])) lists[name] = given[name] as string[];
  if (flags.secret === "-") flags.secret = await readStdin();
  return command.run(args, flags, lists);
}

function errorOf(err: unknown): { code: string; message: string; exit: number } {
  if (isHubError(err)) return { code: err.code, message: err.message, exit: err.code === "validation_error" ? 2 : 1 };
  const message = err instanceof Error ? err.message.split("\n").filter(Boolean).slice(0, 3).join(" ") : String(err);
  return { code: "internal_error", message, exit: 1 };
}

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
  const argv = process.argv.slice(2);
  const json = argv.includes("--json");
  let exit = 0;
  try {
    const out = await run(argv);
    if (out === "help") process.stdout.write(`${json ? JSON.stringify({ usage: USAGE }) : USAGE}\n`);
    else {
      if (!json && out.textTo === "stderr") process.stderr.write(`${out.text}\n`);
      else process.stdout.write(`${json ? JSON.stringify(out.json) : out.text}\n`);
      exit = out.exitCode ?? 0;
    }
  } catch (err) {
    const e = errorOf(err);
    exit = e.exit;
    if (json) process.stdout.write(`${JSON.stringify({ error: { code: e.code, message: e.message } })}\n`);
    process.stderr.write(`ma2h-hub: ${e.code}: ${e.message}\n`);
    if (e.exit === 2 && !json) process.stderr.write(`${USAGE}\n`);
  } finally {
    // A redrive enqueues its first attempt (lib/delivery/admin.ts); close that queue connection too.
    // Only what a command opened, loaded only then: `--help` loads neither Prisma nor BullMQ.
    await Promise.allSettled([
      hasProcessWide("ma2h.queues") ? import("../lib/queue/producer").then((m) => m.closeProducers()) : undefined,
      hasProcessWide("ma2h.db") ? import("../lib/db").then((m) => m.closeDb()) : undefined,
    ]);
  }
  return exit;
}

main().then((code) => {
  process.exitCode = code;
  // Everything is closed and written: exit once stdout has taken the output rather than wait on a
  // stray handle — a closed database socket lingers until the server's backend ends, a second on a
  // busy box.
  process.stdout.write("", () => process.exit(code));
});

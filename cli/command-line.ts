/**
 * The `ma2h-hub` command line as a function: arguments and I/O in, the exit code out. With `--json`,
 * stdout carries exactly one JSON object — the result, or `{"error":{"code","message"}}` with a
 * non-zero exit (2 for usage errors); everything else goes to stderr. The binary (cli/ma2h-hub.ts)
 * hands it process.argv and the process's streams and closes what a command opened; the tests call it
 * in-process with their own (test/support/cli-in-process.ts): it never reads process.argv or the
 * process's streams, never exits and closes nothing the caller's process shares (lib/db, the queues).
 */
import { parseArgs } from "node:util";
import { isHubError } from "@ma2h/protocol/errors";
import { HUB_VERSION } from "@ma2h/protocol/versions";
import { hubRelease } from "../lib/release";
import { usageError, type CommandIo, type Flags, type ListFlags, type Output } from "./command";
import { COMMANDS, USAGE } from "./commands";

/** Where a run's output goes and its input comes from: the process's streams, or a test's buffers. */
export interface CommandLineIo extends CommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

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
  "to",
  "until",
];
/**
 * Flags that may be given several times, each value kept in order (`ListFlags`). A plain string flag
 * given twice keeps its last value (node:util parseArgs), so a flag that means a list must be here.
 */
const LIST_FLAGS = ["sponsor", "add", "remove"];
/** Flags without a value; a given one reads as "true" in `Flags`. */
const BOOLEAN_FLAGS = ["any", "allow-unsealed", "all", "dry-run", "clear"];

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

/** `ma2h-hub --version`: the Hub's release and the protocol version it speaks; opens nothing. */
function versionOutput(): Output {
  const { version, commit } = hubRelease();
  return {
    json: { version, commit, ma2h_version: HUB_VERSION },
    text: `ma2h-hub ${version} (commit ${commit === "unknown" ? commit : commit.slice(0, 12)}; MA2H ${HUB_VERSION})`,
  };
}

async function run(argv: string[], io: CommandIo): Promise<Output | "help"> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    throw usageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return "help";
  if (values.version) return versionOutput();
  const [group, verb, ...rest] = positionals;
  // Two command words (`audit verify`), or one (`backup <file>`): its arguments start after it.
  const twoWords = COMMANDS[`${group ?? ""} ${verb ?? ""}`];
  const oneWord = twoWords || group === undefined || group.includes(" ") ? undefined : COMMANDS[group];
  const command = twoWords ?? oneWord;
  const args = oneWord ? positionals.slice(1) : rest;
  if (!command) throw usageError(group ? `unknown command: ${positionals.slice(0, 2).join(" ")}` : "no command given");
  if (command.variadic ? args.length < command.args : args.length !== command.args)
    throw usageError(`usage: ma2h-hub ${command.usage}`);
  const flags: Flags = {};
  const lists: ListFlags = {};
  const given = values as Record<string, unknown>;
  for (const name of STRING_FLAGS) if (typeof given[name] === "string") flags[name] = given[name] as string;
  for (const name of BOOLEAN_FLAGS) if (given[name] === true) flags[name] = "true";
  for (const name of LIST_FLAGS) if (Array.isArray(given[name])) lists[name] = given[name] as string[];
  // `--secret -`: the secret from stdin (out of the process list), its one trailing newline dropped.
  if (flags.secret === "-") flags.secret = (await io.stdin()).replace(/\r?\n$/, "");
  return command.run(args, flags, lists, io);
}

function errorOf(err: unknown): { code: string; message: string; exit: number } {
  if (isHubError(err)) return { code: err.code, message: err.message, exit: err.code === "validation_error" ? 2 : 1 };
  const message = err instanceof Error ? err.message.split("\n").filter(Boolean).slice(0, 3).join(" ") : String(err);
  return { code: "internal_error", message, exit: 1 };
}

/** Runs one command line (the arguments after `ma2h-hub`); resolves to its exit code, never throws. */
export async function runCommandLine(argv: string[], io: CommandLineIo): Promise<number> {
  const json = argv.includes("--json");
  try {
    const out = await run(argv, io);
    if (out === "help") {
      io.stdout(`${json ? JSON.stringify({ usage: USAGE }) : USAGE}\n`);
      return 0;
    }
    if (!json && out.textTo === "stderr") io.stderr(`${out.text}\n`);
    else io.stdout(`${json ? JSON.stringify(out.json) : out.text}\n`);
    return out.exitCode ?? 0;
  } catch (err) {
    const e = errorOf(err);
    if (json) io.stdout(`${JSON.stringify({ error: { code: e.code, message: e.message } })}\n`);
    io.stderr(`ma2h-hub: ${e.code}: ${e.message}\n`);
    if (e.exit === 2 && !json) io.stderr(`${USAGE}\n`);
    return e.exit;
  }
}

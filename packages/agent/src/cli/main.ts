/**
 * The `ma2h` command: dispatch to one command, map whatever it threw to the stable exit codes
 * (exit-codes.ts), and print errors as one stderr line. There is deliberately no command that lifts
 * an operator's stop (§16.4.1): that is for people only.
 */
import { ask, askSpecs } from "./ask";
import { cancel, cancelSpec } from "./cancel";
import { directives, directivesSpec } from "./directives";
import { type CommandSpec, helpText, type Parsed, parseArgs, UsageError } from "./args";
import { EXIT, EXIT_DESCRIPTIONS, type ExitCode } from "./exit-codes";
import { notify, notifySpec } from "./notify";
import { classify, printError } from "./output";
import { receive, receiveSpec, verify, verifySpec } from "./receive";
import { CLI_VERSION } from "./version";
import { wait, waitSpec } from "./wait";

interface Command {
  spec: CommandSpec;
  run(args: Parsed): Promise<ExitCode>;
}

const COMMANDS: Record<string, Command> = {
  notify: { spec: notifySpec, run: notify },
  "ask confirm": { spec: askSpecs.confirm as CommandSpec, run: (a) => ask("confirm", a) },
  "ask select": { spec: askSpecs.select as CommandSpec, run: (a) => ask("select", a) },
  "ask input": { spec: askSpecs.input as CommandSpec, run: (a) => ask("input", a) },
  wait: { spec: waitSpec, run: wait },
  cancel: { spec: cancelSpec, run: cancel },
  directives: { spec: directivesSpec, run: directives },
  receive: { spec: receiveSpec, run: receive },
  verify: { spec: verifySpec, run: verify },
};

export function mainHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  return [
    `ma2h ${CLI_VERSION} — ask a person from a shell or CI step, and act on a verified answer once`,
    "",
    "usage: ma2h <command> [options]      ma2h <command> --help      ma2h --version",
    "",
    "commands:",
    ...Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(width)}  ${c.spec.summary}`),
    "",
    "environment: MA2H_URL, MA2H_API_KEY, MA2H_AGENT_ID (flags override), MA2H_STORE_DIR,",
    "             MA2H_STATE_KEY (state seal key), MA2H_CALLBACK_SECRET (push HMAC secret)",
    "",
    "exit codes:",
    ...EXIT_DESCRIPTIONS.map(([code, text]) => `  ${code}  ${text}`),
    "",
    "No command lifts an operator's stop (§16.4.1): that is for people only, in the Hub.",
    "",
  ].join("\n");
}

/** Runs one command line; returns the exit code (never throws). */
export async function main(argv: readonly string[]): Promise<ExitCode> {
  const [first, second] = argv;
  if (first === "--version" || first === "-v") {
    process.stdout.write(`${CLI_VERSION}\n`);
    return EXIT.ok;
  }
  if (first === undefined) {
    process.stderr.write(mainHelp());
    return EXIT.usage;
  }
  if (first === "--help" || first === "-h" || first === "help") {
    process.stdout.write(mainHelp());
    return EXIT.ok;
  }
  let name = first;
  let rest = argv.slice(1);
  if (first === "ask") {
    if (second === undefined || second.startsWith("-")) {
      const known = second === "--help" || second === "-h";
      (known ? process.stdout : process.stderr).write(
        "usage: ma2h ask confirm|select|input <title> [options]   (ma2h ask confirm --help)\n",
      );
      return known ? EXIT.ok : EXIT.usage;
    }
    name = `ask ${second}`;
    rest = argv.slice(2);
  }
  const command = COMMANDS[name];
  if (!command) {
    printError("usage_error", `unknown command "${name}" (ma2h --help lists them)`);
    return EXIT.usage;
  }
  try {
    const args = parseArgs(rest, command.spec);
    if (args.help) {
      process.stdout.write(helpText(command.spec));
      return EXIT.ok;
    }
    return await command.run(args);
  } catch (err) {
    const { exit, code, message } = classify(err);
    printError(code, err instanceof UsageError ? `${message} (see ma2h ${command.spec.name} --help)` : message);
    return exit;
  }
}

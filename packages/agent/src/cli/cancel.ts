/**
 * `ma2h cancel <id>` — withdraw an open ask (§8.4; only the submitting agent can). Losing the race
 * to an answer is the Hub's `409 already_terminal`: exit 4, and `ma2h wait <id>` reads the outcome.
 */
import type { CommandSpec, Parsed } from "./args";
import { EXIT, type ExitCode } from "./exit-codes";
import { printJson, printLine } from "./output";
import { CONNECTION_FLAGS, connect, STORE_FLAG } from "./settings";

export const cancelSpec: CommandSpec = {
  name: "cancel",
  summary: "Withdraw an open ask. Prints the id and its status.",
  positionals: [{ name: "id", required: true }],
  flags: { json: { kind: "boolean", help: "print the Hub's answer as JSON" }, ...CONNECTION_FLAGS, ...STORE_FLAG },
};

export async function cancel(args: Parsed): Promise<ExitCode> {
  const { client } = connect(args);
  const result = await client.messages.cancel(args.positionals[0] as string);
  if (args.booleans.json) printJson(result);
  else printLine(`${result.id} ${result.status}`);
  return EXIT.ok;
}

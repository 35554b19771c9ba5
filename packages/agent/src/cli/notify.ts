/** `ma2h notify <title>` — an FYI to the people (§5.1); prints the id (or the ack with --json). */
import type { CommandSpec, Parsed } from "./args";
import { EXIT, type ExitCode } from "./exit-codes";
import { printJson, printLine } from "./output";
import { CONNECTION_FLAGS, connect, STORE_FLAG } from "./settings";
import { commonInput, ENVELOPE_FLAGS, noteDestination, submitOnce } from "./submit";

export const notifySpec: CommandSpec = {
  name: "notify",
  summary: "Tell the people (or, with --to, another agent) something; no answer is expected. Prints the message id.",
  positionals: [{ name: "title", required: true }],
  flags: { ...ENVELOPE_FLAGS, ...CONNECTION_FLAGS, ...STORE_FLAG },
};

export async function notify(args: Parsed): Promise<ExitCode> {
  const input = commonInput(args);
  const connection = connect(args);
  const ack = await submitOnce(
    connection,
    input.idempotencyKey,
    async () => (await connection.client.messages.notify(input)).ack,
  );
  noteDestination(input.to, ack);
  if (args.booleans.json) printJson(ack);
  else printLine(ack.id);
  return EXIT.ok;
}

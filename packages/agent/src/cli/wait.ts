/** `ma2h wait <id>` — wait for a message's terminal Response; the exit code tells the outcome. */
import type { AskRequest } from "@ma2h/protocol/message";
import { HUMAN_ONLY_FIELD } from "../answers";
import { askShape } from "../off-menu";
import type { CommandSpec, Parsed } from "./args";
import { parseDuration } from "./duration";
import type { ExitCode } from "./exit-codes";
import { CONNECTION_FLAGS, connect, STORE_FLAG } from "./settings";
import { waitAndReport } from "./waiting";

export const waitSpec: CommandSpec = {
  name: "wait",
  summary: "Wait for an ask or task to end. Prints the answer value (the Response with --json).",
  positionals: [{ name: "id", required: true }],
  flags: {
    timeout: { kind: "string", value: "D", help: "give up after D (exit 7; the message stays open)" },
    json: { kind: "boolean", help: "print the whole Response" },
    ...CONNECTION_FLAGS,
    ...STORE_FLAG,
  },
};

export async function wait(args: Parsed): Promise<ExitCode> {
  const id = args.positionals[0] as string;
  const timeout = args.strings.timeout;
  const timeoutMs = timeout !== undefined ? parseDuration(timeout, "timeout") : undefined;
  const { client } = connect(args);
  // The ask's mode and options decide the exit code (deny → 1, an own-words answer → 8), and an
  // ask made with --require-human (its request carries x-ma2h-human-only) exits 9 when a non-person
  // answered it; one GET tells them.
  const message = (await client.messages.get(id)) as { request?: AskRequest & Record<string, unknown> } | null;
  return waitAndReport(client, id, {
    json: args.booleans.json === true,
    requireHuman: message?.request?.[HUMAN_ONLY_FIELD] === true,
    ...(message !== null ? { shape: askShape(message.request) } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  });
}

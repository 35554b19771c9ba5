/**
 * Waiting for a terminal Response (the client long-polls `?wait=60`, §8.2), bounded by a timeout and
 * by Ctrl-C / SIGTERM: either way the message stays open on the Hub and the command exits 7, naming
 * the id so `ma2h wait <id>` picks it up again. Nothing here cancels the ask.
 */
import type { Ma2hClient } from "../client";
import { NotAnsweredByHumanError, WaitTimeoutError } from "../errors";
import type { AskShape } from "../off-menu";
import { EXIT, type ExitCode } from "./exit-codes";
import { CliFailure } from "./output";
import { report } from "./outcome";

export async function waitAndReport(
  client: Ma2hClient,
  id: string,
  o: { timeoutMs?: number; shape?: AskShape; json: boolean; requireHuman?: boolean },
): Promise<ExitCode> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    const response = await client.messages.wait(id, {
      signal: controller.signal,
      requireHuman: o.requireHuman === true,
      ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
    });
    return report(response, o);
  } catch (err) {
    // The SDK refused a non-person's answer (--require-human): exit 9, naming the actor (outcome.ts).
    if (err instanceof NotAnsweredByHumanError) return report(err.response, { ...o, requireHuman: true });
    if (err instanceof WaitTimeoutError || controller.signal.aborted)
      throw new CliFailure(EXIT.stillOpen, "still_open", `${id} is still open; \`ma2h wait ${id}\` resumes waiting`);
    throw err;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}

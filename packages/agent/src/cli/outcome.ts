/**
 * A terminal Response → stdout and the exit code. Without --json stdout is the bare answer value
 * (a string as is, an input answer object as JSON); with --json the whole §6 Response.
 */
import type { HubResponse } from "../../../../lib/protocol/response";
import { DEFAULT_ON_EXPIRE_ACTOR } from "../../../../lib/protocol/response";
import { EXIT, type ExitCode } from "./exit-codes";
import { note, printJson, printLine } from "./output";

export function exitFor(response: HubResponse, mode: string | undefined): ExitCode {
  switch (response.resolution) {
    case "answered":
      // Fail closed: only a plain `approve` is a yes. An off-menu answer (allow_edit) is not one.
      if (mode === "confirm")
        return response.response?.value === "approve" && !response.response.edited ? EXIT.ok : EXIT.denied;
      return EXIT.ok;
    case "completed":
      return EXIT.ok;
    default:
      return EXIT.notAnswered;
  }
}

export function report(response: HubResponse, o: { mode?: string; json: boolean }): ExitCode {
  const value = response.response?.value;
  if (o.json) printJson(response);
  else if (value !== undefined) printLine(typeof value === "string" ? value : JSON.stringify(value));
  const actor = response.response?.actor;
  // §9.2: the expiry default is told by the bound actor, never by the unbound `defaulted` flag.
  if (response.resolution === "expired" && actor === DEFAULT_ON_EXPIRE_ACTOR)
    note(`${response.in_reply_to} expired; its default applied (${JSON.stringify(value)})`);
  else if (response.resolution !== "answered" && response.resolution !== "completed")
    note(`${response.in_reply_to} ${response.resolution}${actor ? ` by ${actor}` : ""}`);
  return exitFor(response, o.mode);
}

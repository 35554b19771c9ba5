/**
 * A terminal Response → stdout and the exit code. Without --json stdout is the bare answer value
 * (a string as is, an input answer object as JSON); with --json the whole §6 Response. An answer in
 * the person's own words (`allow_edit`, §5.2) has an exit code of its own and a note on stderr, so
 * neither a script nor a person reads it as one of the options. With --require-human an answer or
 * decline by anything but a `human:` actor exits 9 (a standing rule, an agent): stdout stays empty
 * (the Response with --json) and stderr names the actor. Without it, an answer by a standing rule
 * (`system:rule/…`) exits as its value says, with a note on stderr that no person chose it.
 */
import type { HubResponse } from "@ma2h/protocol/response";
import { DEFAULT_ON_EXPIRE_ACTOR } from "@ma2h/protocol/response";
import { breaksRequireHuman } from "../answers";
import { type AskShape, isOffMenu } from "../off-menu";
import { EXIT, type ExitCode } from "./exit-codes";
import { note, printError, printJson, printLine } from "./output";

/** §9.1 the actor of an answer the Hub gave by a person's standing rule. */
const RULE_ACTOR = "system:rule/";

export function exitFor(response: HubResponse, shape: AskShape | undefined, requireHuman = false): ExitCode {
  // Before any value is read: a --require-human ask answered by a non-person is never a yes.
  if (requireHuman && breaksRequireHuman(response)) return EXIT.notByHuman;
  switch (response.resolution) {
    case "answered":
      // No option was chosen: neither a yes (confirm stays fail-closed) nor a listed value.
      if (shape !== undefined && isOffMenu(response, shape)) return EXIT.offMenu;
      // Fail closed: only a plain `approve` is a yes.
      if (shape?.mode === "confirm")
        return response.response?.value === "approve" && !response.response.edited ? EXIT.ok : EXIT.denied;
      return EXIT.ok;
    case "completed":
      return EXIT.ok;
    default:
      return EXIT.notAnswered;
  }
}

export function report(
  response: HubResponse,
  o: { shape?: AskShape; json: boolean; requireHuman?: boolean },
): ExitCode {
  const value = response.response?.value;
  const actor = response.response?.actor;
  const code = exitFor(response, o.shape, o.requireHuman === true);
  if (code === EXIT.notByHuman) {
    if (o.json) printJson(response);
    printError(
      "not_answered_by_human",
      `${response.in_reply_to} was ${response.resolution} by ${actor ?? "no attested actor"}, not by a person (--require-human)`,
    );
    return code;
  }
  if (o.json) printJson(response);
  else if (value !== undefined) printLine(typeof value === "string" ? value : JSON.stringify(value));
  if (actor?.startsWith(RULE_ACTOR))
    note(`${response.in_reply_to} ${response.resolution} by a standing rule (${actor}), not by a person now`);
  // §9.2: the expiry default is told by the bound actor, never by the unbound `defaulted` flag.
  if (response.resolution === "expired" && actor === DEFAULT_ON_EXPIRE_ACTOR)
    note(`${response.in_reply_to} expired; its default applied (${JSON.stringify(value)})`);
  else if (code === EXIT.offMenu)
    note(
      `${response.in_reply_to} answered in the person's own words${actor ? ` (${actor})` : ""}: not one of the options`,
    );
  else if (response.resolution !== "answered" && response.resolution !== "completed")
    note(`${response.in_reply_to} ${response.resolution}${actor ? ` by ${actor}` : ""}`);
  return code;
}

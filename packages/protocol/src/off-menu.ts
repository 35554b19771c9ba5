/**
 * §5.2/§6: an answer in the person's own words (`allow_edit`) is not one of the options the ask
 * offered. The CLI gives it its own exit code and the MCP server returns it as free text, so a
 * caller matching on option values never mistakes a person's prose for one of them. Off-menu when
 * the Hub says so (`response.edited`), or when the value is not one of the options we know we
 * offered — the membership test itself, so a Response missing the flag is not taken on trust.
 */
import { CONFIRM_OPTIONS, effectiveOptions } from "./ask-contract";
import type { AskRequest } from "./message";
import type { HubResponse } from "./response";

/** What the asker knows of its own question: the mode and the values it offered (for membership). */
export interface AskShape {
  mode: "confirm" | "select" | "input" | string;
  optionValues?: readonly string[];
}

/** §5.2: the values the Hub synthesizes for a confirm without options — the protocol's one list. */
const CONFIRM_VALUES = CONFIRM_OPTIONS.map((o) => o.value);

export function isOffMenu(r: HubResponse, shape: AskShape): boolean {
  const value = r.response?.value;
  if (r.response?.edited === true) return true;
  if (typeof value !== "string" || shape.mode === "input") return false;
  const offered = shape.optionValues ?? (shape.mode === "confirm" ? CONFIRM_VALUES : undefined);
  return offered !== undefined && !offered.includes(value);
}

/** The asker's view of its own question from its `request` (absent for a task). */
export function askShape(request: AskRequest | undefined): AskShape {
  if (request === undefined) return { mode: "task" };
  return request.mode === "input"
    ? { mode: "input" }
    : { mode: request.mode, optionValues: effectiveOptions(request).map((o) => o.value) };
}

/**
 * The v0.6 `ask` contract (§5.2, §6): the two submit-time corrections that apply at EVERY declared
 * minor (option values unique, an input schema that describes an answer object), the version-gated
 * `allow_edit` free-form answer, and the membership test that stamps `response.edited`.
 *
 * The corrections run on the raw body before the general schema parse (like the `#`-sender rule),
 * so an unanswerable ask is always `422 invalid_field` naming the field, never a generic `400`.
 * `allow_edit` is gated where the Hub acts on it — never by stripping it from the stored envelope,
 * whose bytes the §8.1 dedup hash covers (§5.2 "Version discipline").
 */
import { HubError } from "./errors";
import type { AskRequest, Message, ResponseOption } from "./message";
import { inputSchemaProblem, isPlainObject } from "./input-schema";
import { parseVersion } from "./versions";

/** §5.2: `allow_edit` is v0.6 vocabulary — honoured on an envelope declaring minor ≥ 6 only. */
export const ALLOW_EDIT_MIN_MINOR = 6;

/** §5.2 (v0.6): the index of the first option repeating an earlier option's `value`, and that earlier index. */
export function duplicateOptionValue(options: unknown): { index: number; first: number } | null {
  if (!Array.isArray(options)) return null;
  const seen = new Map<string, number>();
  for (let i = 0; i < options.length; i++) {
    const value = isPlainObject(options[i]) ? options[i].value : undefined;
    if (typeof value !== "string") continue;
    const first = seen.get(value);
    if (first !== undefined) return { index: i, first };
    seen.set(value, i);
  }
  return null;
}

/**
 * The two v0.6 corrections, on a submitted body before it is parsed, at every declared minor
 * (§5.2, dp-029): a `select`/`confirm` whose options share a `value`, and a `mode=input` schema that
 * admits no answer object → `422 invalid_field` naming the field. Anything else is left to the
 * schema parse. A stray `schema` on an option ask is not looked at.
 */
export function assertAskAnswerable(body: unknown): void {
  if (!isPlainObject(body) || body.type !== "ask" || !isPlainObject(body.request)) return;
  const { mode, options, schema } = body.request;
  if (mode === "select" || mode === "confirm") {
    const dup = duplicateOptionValue(options);
    if (dup !== null) {
      throw new HubError(
        "invalid_field",
        `request.options[${dup.index}].value: repeats request.options[${dup.first}].value; option values must be unique, since the answer carries only the value (§5.2)`,
      );
    }
  }
  if (mode === "input" && isPlainObject(schema)) {
    const problem = inputSchemaProblem(schema);
    if (problem !== null) throw new HubError("invalid_field", `request.schema.${problem.at}: ${problem.message}`);
  }
}

/**
 * §5.2: the free-form answer is offered only on a `select`/`confirm` whose envelope declares minor
 * ≥ 6 and sets `permissions.allow_edit: true`. Below 0.6 the field is ignored; for input it is
 * meaningless.
 */
export function allowsFreeFormAnswer(message: Message): boolean {
  if (message.type !== "ask") return false;
  const { request } = message;
  if (request.mode === "input" || request.permissions?.allow_edit !== true) return false;
  const version = parseVersion(message.ma2h_version);
  return version !== null && version.minor >= ALLOW_EDIT_MIN_MINOR;
}

/** §5.2: the options a resolver chooses from — the supplied ones, or the confirm synthesis. */
export const CONFIRM_OPTIONS: readonly ResponseOption[] = Object.freeze([
  Object.freeze({ value: "approve", label: "Approve" }),
  Object.freeze({ value: "deny", label: "Deny" }),
]);

export function effectiveOptions(request: AskRequest): ResponseOption[] {
  if (request.mode === "confirm" && request.options === undefined) return CONFIRM_OPTIONS.map((o) => ({ ...o }));
  return request.options ?? [];
}

/**
 * §6 `response.edited`: true iff an answered `value` is not a member of `options[].value` — set
 * membership alone, never the resolver's word or which control a person used. Always false for
 * input mode (no options to be outside of).
 */
export function isEditedAnswer(request: AskRequest, value: unknown): boolean {
  if (request.mode === "input" || typeof value !== "string") return false;
  return !effectiveOptions(request).some((o) => o.value === value);
}

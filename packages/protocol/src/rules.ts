/**
 * Pure semantic rules the schemas cannot express, applied at submit (§4, §5.2, §7) and at resolve
 * (§8.8). Every failure is `422 invalid_field`. Limits, addressing and authorization live elsewhere.
 */
import { HubError } from "./errors";
import { dateTimeToMillis } from "./formats";
import { assertFlatSchema, validateFlat } from "./flat-schema";
import { RESOLVER_RESOLUTIONS_BY_TYPE } from "./lifecycle";
import type { AskRequest, Message } from "./message";
import { allowsFreeFormAnswer, effectiveOptions } from "./ask-contract";
import type { ResolveRequest } from "./resolve-request";

export { resolveRequestSchema, parseResolveRequest, type ResolveRequest } from "./resolve-request";
export { CONFIRM_OPTIONS, effectiveOptions, isEditedAnswer } from "./ask-contract";
export {
  RESOLUTIONS_BY_TYPE,
  RESOLVER_RESOLUTIONS_BY_TYPE,
  TERMINAL_STATUSES,
  STATUSES_BY_TYPE,
  isTerminal,
  type Resolution,
  type MessageStatus,
} from "./lifecycle";

function invalid(message: string): never {
  throw new HubError("invalid_field", message);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * A `value` for the request's mode (§5.2, §8.8): a string member of the effective options for
 * select/confirm — or, when `offMenu` (the honoured `allow_edit`), any non-blank string — and an
 * object valid against the flat schema for input. Returns the problem or null.
 */
function valueProblem(request: AskRequest, value: unknown, offMenu = false): string | null {
  if (request.mode === "input") {
    if (!isObject(value)) return "must be an object for mode input";
    const problem = validateFlat(request.schema, value);
    return problem === null ? null : `does not match request.schema: ${problem}`;
  }
  const values = effectiveOptions(request).map((o) => o.value);
  if (typeof value !== "string") return `must be a string for mode ${request.mode}`;
  if (values.includes(value)) return null;
  // docs/decisions/protocol.md: a free-form answer says something; a blank one is refused like a missing value.
  if (offMenu) return value.trim() === "" ? "a free-form answer must not be blank" : null;
  const hint =
    request.permissions?.allow_edit === true
      ? " (allow_edit is honoured only on an ask declaring ma2h_version ≥ 0.6)"
      : "";
  return `must be one of ${values.map((v) => JSON.stringify(v)).join(", ")}${hint}`;
}

/**
 * Submit-time checks (§4, §5.2, §7, §8.5): `expires_at` strictly after `now` (Hub clock, §9.5); an
 * input ask's schema is flat; `default_on_expire` is null or valid for the mode.
 */
export function checkSubmitSemantics(message: Message, now: Date): void {
  if (message.expires_at !== undefined) {
    const at = dateTimeToMillis(message.expires_at);
    if (at === null || at <= now.getTime()) invalid("expires_at: must be in the future (§4)");
  }
  if (message.type !== "ask") return;
  const { request } = message;
  if (request.mode === "input") assertFlatSchema(request.schema, "request.schema");
  // §7: `allow_edit` governs the human's answer, never the agent's expiry fallback (dp-028 (6)).
  const fallback = request.default_on_expire;
  if (fallback === undefined || fallback === null) return;
  const problem = valueProblem(request, fallback);
  if (problem !== null) invalid(`request.default_on_expire: ${problem} (§7)`);
}

/**
 * Resolve-time checks (§8.8, §5.2): the resolution fits the verb, `value` iff answered, no checklist
 * on an ask, the answered value fits the request, and the §5.2 permissions allow the resolution.
 */
export function checkResolution(message: Message, body: ResolveRequest): void {
  if (message.type === "notify") invalid("resolution: a notify cannot be resolved (§5.1)");
  const allowed: readonly string[] = RESOLVER_RESOLUTIONS_BY_TYPE[message.type];
  if (!allowed.includes(body.resolution)) {
    invalid(`resolution: must be ${allowed.join(" or ")} for a ${message.type} (§8.8)`);
  }
  if (body.resolution === "answered" && body.value === undefined)
    invalid("value: is required when resolution is answered (§8.8)");
  if (body.resolution !== "answered" && body.value !== undefined)
    invalid(`value: not allowed when resolution is ${body.resolution} (§8.8)`);
  if (message.type !== "ask") return;

  if (body.checklist !== undefined) invalid("checklist: not allowed on an ask resolution (§8.8)");
  // §5.2 permissions → §7: allow_respond:false leaves only decline; allow_ignore:false removes it.
  const permissions = message.request.permissions;
  if (permissions?.allow_respond === false && body.resolution !== "declined") {
    invalid(
      "resolution: this ask does not allow a response (permissions.allow_respond is false); only declined (§5.2)",
    );
  }
  if (permissions?.allow_ignore === false && body.resolution === "declined") {
    invalid("resolution: this ask cannot be declined (permissions.allow_ignore is false) (§5.2)");
  }
  if (body.resolution === "answered") {
    // §5.2, §8.8: off-menu only with `allow_edit` honoured at the envelope's own minor (≥ 6).
    const problem = valueProblem(message.request, body.value, allowsFreeFormAnswer(message));
    if (problem !== null) invalid(`value: ${problem} (§8.8)`);
  }
}

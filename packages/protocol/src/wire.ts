/**
 * Shared zod building blocks for the wire schemas, so each mirrors its JSON Schema keyword for
 * keyword: `format`s, JSON "object"/"integer", code-point string lengths, the version patterns, and
 * one way of turning the first zod issue into a HubError message ("<json path>: <what is wrong>").
 */
import { z } from "zod";
import { HubError, type ErrorCode } from "./errors";
import { isDateTime, isUri } from "./formats";

/** §10: a canonical `0.x` (no leading-zero minor). JSON Schema patterns are Unicode regexes. */
export const VERSION_PATTERN = /^0\.(0|[1-9]\d*)$/u;
/** The schemas' "minor ≥ 4" test (v0.4 features: directives §13, ack §14). */
export const V04_PATTERN = /^0\.([4-9]|[1-9]\d+)$/u;
/** The schemas' "minor ≥ 5" test (v0.5 features). */
export const V05_PATTERN = /^0\.([5-9]|[1-9]\d+)$/u;
/** §4 `to` grammar: the first `#` ends the agent id; the session segment matches `^sess_`. */
export const ADDRESS_PATTERN = /^agent:[^#]+(#sess_.+)?$/u;
/** §9.1 actor / resolver entry form. */
export const ACTOR_PATTERN = /^(human|agent|system):.+$/u;

export function isV05(version: unknown): boolean {
  return typeof version === "string" && V05_PATTERN.test(version);
}

export const versionString = () =>
  z.string().regex(VERSION_PATTERN, { error: "must be a canonical 0.x version (§10)" });
// `.meta()` restores, in z.toJSONSchema output (the OpenAPI document, lib/openapi), the keyword a
// refinement stands for; parsing is the refinement's alone.
export const dateTimeString = () =>
  z.string().refine(isDateTime, { error: "must be an RFC 3339 date-time" }).meta({ format: "date-time" });
export const uriString = () => z.string().refine(isUri, { error: "must be an absolute URI" }).meta({ format: "uri" });
export const patternString = (pattern: RegExp) => z.string().regex(pattern, { error: `must match ${pattern.source}` });

/** JSON Schema `"type": "object"`: any non-null, non-array object; values unchecked. */
export const jsonObject = () => z.record(z.string(), z.unknown());

/** JSON Schema `"type": "integer"` with a `minimum` (any integral number, not only safe ones). */
export const integerMin = (minimum: number) =>
  z
    .number()
    .refine(Number.isInteger, { error: "must be an integer" })
    .refine((n) => n >= minimum, { error: `must be ≥ ${minimum}` })
    .meta({ type: "integer", minimum });

/** JSON Schema minLength/maxLength count code points, not UTF-16 units. */
export const codePointString = (min: number, max: number) =>
  z
    .string()
    .refine(
      (s) => {
        const n = [...s].length;
        return n >= min && n <= max;
      },
      { error: `must be ${min}–${max} characters` },
    )
    .meta({ minLength: min, maxLength: max });

/** A field the branch forbids (JSON Schema `not: {required: [...]}`). */
export const forbidden = (why: string) => z.never({ error: `not allowed ${why}` }).optional();

/** `$.a.b[0]` → `a.b[0]`; the root is `(body)`. */
export function jsonPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out === "" ? "(body)" : out;
}

function withArticle(noun: string): string {
  return /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
}

function list(values: readonly unknown[]): string {
  return values.map((v) => JSON.stringify(v)).join(", ");
}

/** Per-parse messages for zod's built-in issues; schema-level messages take precedence. */
const errorMap = (iss: z.core.$ZodRawIssue): string | undefined => {
  switch (iss.code) {
    case "invalid_type":
      if (iss.input === undefined) return "is required";
      return `must be ${withArticle(iss.expected === "record" ? "object" : iss.expected)}`;
    case "invalid_value":
      return iss.values.length === 1 ? `must be ${list(iss.values)}` : `must be one of ${list(iss.values)}`;
    case "unrecognized_keys":
      return `unexpected field${iss.keys.length > 1 ? "s" : ""} ${list(iss.keys)}`;
    case "invalid_union":
      if ("options" in iss && Array.isArray(iss.options) && iss.options.length > 0) {
        return `must be one of ${list(iss.options)}`;
      }
      return "does not match any allowed shape";
    case "too_small":
      return iss.origin === "array" ? `must have at least ${iss.minimum} item(s)` : `must be ≥ ${iss.minimum}`;
    case "too_big":
      return iss.origin === "array" ? `must have at most ${iss.maximum} item(s)` : `must be ≤ ${iss.maximum}`;
    default:
      return undefined;
  }
};

export type ParseResult<T> = { success: true; data: T } | { success: false; message: string };

/** Parses with the shared messages; on failure reports the first issue as "<path>: <problem>". */
export function safeParseWire<S extends z.ZodType>(schema: S, input: unknown): ParseResult<z.output<S>> {
  const result = schema.safeParse(input, { error: errorMap });
  if (result.success) return { success: true, data: result.data };
  const first = result.error.issues[0];
  const message = first ? `${jsonPath(first.path)}: ${first.message}` : "(body): invalid";
  return { success: false, message };
}

/** `safeParseWire`, throwing `HubError(code, message)` on failure. */
export function parseWire<S extends z.ZodType>(schema: S, input: unknown, code: ErrorCode): z.output<S> {
  const result = safeParseWire(schema, input);
  if (!result.success) throw new HubError(code, result.message);
  return result.data;
}

/**
 * The §5.2 "flat" input schema of an ask in mode `input`, read as MCP elicitation's restricted
 * schema (§11: the spec maps `input` onto it): one object whose properties are primitives a human
 * form can render and the Hub can validate without a general JSON Schema engine.
 *
 * A property is one of:
 * - `string` — `minLength`, `maxLength`, `pattern` (ECMAScript, unanchored, as JSON Schema), `format`
 *   (`email`, `uri`, `date`, `date-time`), `enum`, or a titled `oneOf: [{const, title}]`;
 * - `number` / `integer` — `minimum`, `maximum` (inclusive), `enum`;
 * - `boolean` (`enum` tolerated);
 * - `array` — a multi-select: `items` is `{type: "string", enum}` or `{anyOf: [{const, title}]}`,
 *   with `minItems` / `maxItems`; the answer is a list of distinct members.
 * Each may carry `default` (valid for the property), `title`, `description`, `$comment`,
 * `x-ma2h-sensitive` and other `x-*` annotations; `enumNames` (MCP's older titled enum) is read as
 * the labels of `enum`. v0.6 (§5.2): the root's `type` may be absent or a type array admitting an
 * object.
 *
 * This Hub's reading of "FLAT" (docs/decisions/protocol.md): nested objects, arrays of objects and `$ref`
 * are refused (`422 invalid_field`, the message saying which), as is any keyword this validator would
 * not enforce — refused rather than silently ignored, so an agent never believes a constraint holds
 * that nobody checked.
 */
import vm from "node:vm";
import { HubError } from "./errors";
import { isDateTime, isUri } from "./formats";
import { inputSchemaProblem, isPlainObject } from "./input-schema";

export type FlatScalarType = "string" | "number" | "integer" | "boolean";
export type FlatType = FlatScalarType | "array";
export type FlatFormat = "email" | "uri" | "date" | "date-time";
type Scalar = string | number | boolean;

export interface FlatProperty {
  type: FlatType;
  enum?: Scalar[];
  enumNames?: string[];
  oneOf?: Array<{ const: string; title: string }>;
  items?: { type?: "string"; enum?: string[]; anyOf?: Array<{ const: string; title: string }> };
  title?: string;
  description?: string;
  default?: unknown;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: FlatFormat;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  "x-ma2h-sensitive"?: boolean;
}
export interface FlatSchema {
  type?: "object" | string[];
  properties: Record<string, FlatProperty>;
  required?: string[];
  additionalProperties?: boolean;
}

/** A property's choices, in order, with the label a person reads (the value when untitled). */
export interface FlatChoice {
  value: Scalar;
  label: string;
}

const FORMATS: readonly string[] = ["email", "uri", "date", "date-time"];
/** A pattern longer than this is refused: it is a check on a form field, not a program. */
export const MAX_PATTERN_LENGTH = 512;
const ROOT_KEYS = [
  "type",
  "properties",
  "required",
  "additionalProperties",
  "title",
  "description",
  "$schema",
  "$comment",
];
const ANNOTATIONS = ["title", "description", "$comment", "default", "x-ma2h-sensitive"];
const KEYS_BY_TYPE: Record<FlatType, readonly string[]> = {
  string: [...ANNOTATIONS, "type", "enum", "enumNames", "oneOf", "minLength", "maxLength", "pattern", "format"],
  number: [...ANNOTATIONS, "type", "enum", "minimum", "maximum"],
  integer: [...ANNOTATIONS, "type", "enum", "minimum", "maximum"],
  boolean: [...ANNOTATIONS, "type", "enum"],
  array: [...ANNOTATIONS, "type", "items", "minItems", "maxItems", "uniqueItems"],
};
const SUPPORTED = "a property is a string, number, integer, boolean, or an array of enum strings (multi-select)";

function fits(type: FlatScalarType, v: unknown): boolean {
  switch (type) {
    case "string":
      return typeof v === "string";
    case "number":
      return typeof v === "number" && Number.isFinite(v);
    case "integer":
      return typeof v === "number" && Number.isInteger(v);
    case "boolean":
      return typeof v === "boolean";
  }
}

function unknownKeyword(obj: Record<string, unknown>, allowed: readonly string[]): string | undefined {
  return Object.keys(obj).find((k) => !allowed.includes(k) && !k.startsWith("x-"));
}

function fail(at: string, what: string): never {
  throw new HubError("invalid_field", `${at}: ${what} (§5.2 flat schema)`);
}

/** `$ref` anywhere under `node`: its path, or null. Named first, so the refusal says what is missing. */
function refPath(node: unknown, at: string): string | null {
  if (Array.isArray(node)) {
    for (const [i, v] of node.entries()) {
      const found = refPath(v, `${at}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (!isPlainObject(node)) return null;
  for (const [k, v] of Object.entries(node)) {
    if (k === "$ref") return `${at}.$ref`;
    const found = refPath(v, `${at}.${k}`);
    if (found) return found;
  }
  return null;
}

function isCount(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= 0;
}

/** `[{const, title}]`, non-empty, string consts, unique: MCP's titled single and multi select. */
function assertTitledChoices(at: string, list: unknown): void {
  if (!Array.isArray(list) || list.length === 0) fail(at, "must be a non-empty array of {const, title}");
  const seen = new Set<string>();
  list.forEach((c, i) => {
    if (!isPlainObject(c) || typeof c.const !== "string" || typeof c.title !== "string")
      fail(`${at}[${i}]`, "must be {const: <string>, title: <string>}");
    const extra = unknownKeyword(c, ["const", "title", "description"]);
    if (extra !== undefined) fail(`${at}[${i}].${extra}`, "unsupported keyword");
    if (seen.has(c.const)) fail(`${at}[${i}].const`, "is listed twice");
    seen.add(c.const);
  });
}

function assertEnum(at: string, type: FlatScalarType, list: unknown): void {
  if (!Array.isArray(list) || list.length === 0) fail(at, "must be a non-empty array");
  list.forEach((v, i) => {
    if (!fits(type, v)) fail(`${at}[${i}]`, `must be a ${type}`);
  });
}

function assertPattern(at: string, pattern: unknown): void {
  if (typeof pattern !== "string") fail(at, "must be a string");
  if (pattern.length > MAX_PATTERN_LENGTH) fail(at, `must be at most ${MAX_PATTERN_LENGTH} characters`);
  try {
    new RegExp(pattern, "u");
  } catch {
    fail(at, "must be a valid ECMAScript regular expression");
  }
}

function assertBounds(at: string, prop: Record<string, unknown>, low: string, high: string, count: boolean): void {
  for (const key of [low, high]) {
    const v = prop[key];
    if (v === undefined) continue;
    if (count ? !isCount(v) : typeof v !== "number" || !Number.isFinite(v))
      fail(`${at}.${key}`, count ? "must be a non-negative integer" : "must be a number");
  }
  if (typeof prop[low] === "number" && typeof prop[high] === "number" && prop[low] > prop[high])
    fail(`${at}.${low}`, `must not exceed ${high}`);
}

function assertFlatProperty(at: string, prop: unknown): void {
  if (!isPlainObject(prop)) fail(at, "must be an object");
  const type = prop.type;
  if (type === "object") fail(`${at}.type`, `nested objects are not supported: ${SUPPORTED}`);
  if (typeof type !== "string" || !Object.hasOwn(KEYS_BY_TYPE, type)) fail(`${at}.type`, `unsupported: ${SUPPORTED}`);
  const extra = unknownKeyword(prop, KEYS_BY_TYPE[type as FlatType]);
  if (extra !== undefined) fail(`${at}.${extra}`, `unsupported keyword for a ${type} property`);
  for (const key of ["title", "description"] as const) {
    if (prop[key] !== undefined && typeof prop[key] !== "string") fail(`${at}.${key}`, "must be a string");
  }
  if (prop["x-ma2h-sensitive"] !== undefined && typeof prop["x-ma2h-sensitive"] !== "boolean") {
    fail(`${at}.x-ma2h-sensitive`, "must be a boolean");
  }
  if (type === "array") {
    const items = prop.items;
    if (!isPlainObject(items)) fail(`${at}.items`, "must be {type: string, enum} or {anyOf: [{const, title}]}");
    if (items.type === "object" || isPlainObject(items.properties))
      fail(`${at}.items`, "arrays of objects are not supported: an array is a multi-select of enum strings");
    if (items.anyOf !== undefined) {
      const extraItem = unknownKeyword(items, ["anyOf", "type"]);
      if (extraItem !== undefined) fail(`${at}.items.${extraItem}`, "unsupported keyword");
      if (items.type !== undefined && items.type !== "string") fail(`${at}.items.type`, "must be string");
      assertTitledChoices(`${at}.items.anyOf`, items.anyOf);
    } else {
      const extraItem = unknownKeyword(items, ["type", "enum"]);
      if (extraItem !== undefined) fail(`${at}.items.${extraItem}`, "unsupported keyword");
      if (items.type !== "string" || items.enum === undefined)
        fail(`${at}.items`, "must be {type: string, enum: [...]}: an array is a multi-select of enum strings");
      assertEnum(`${at}.items.enum`, "string", items.enum);
    }
    assertBounds(at, prop, "minItems", "maxItems", true);
    if (prop.uniqueItems !== undefined && prop.uniqueItems !== true) fail(`${at}.uniqueItems`, "must be true");
  } else {
    const scalar = type as FlatScalarType;
    if (prop.enum !== undefined) assertEnum(`${at}.enum`, scalar, prop.enum);
    if (prop.enumNames !== undefined) {
      const names = prop.enumNames;
      if (!Array.isArray(prop.enum) || !Array.isArray(names) || names.length !== prop.enum.length)
        fail(`${at}.enumNames`, "must be an array of strings as long as enum");
      if (!names.every((n) => typeof n === "string")) fail(`${at}.enumNames`, "must be an array of strings");
    }
    if (prop.oneOf !== undefined) {
      if (prop.enum !== undefined) fail(`${at}.oneOf`, "use either enum or oneOf, not both");
      assertTitledChoices(`${at}.oneOf`, prop.oneOf);
    }
    if (scalar === "string") {
      assertBounds(at, prop, "minLength", "maxLength", true);
      if (prop.pattern !== undefined) assertPattern(`${at}.pattern`, prop.pattern);
      if (prop.format !== undefined && (typeof prop.format !== "string" || !FORMATS.includes(prop.format)))
        fail(`${at}.format`, `must be one of ${FORMATS.join(", ")}`);
    } else if (scalar !== "boolean") {
      assertBounds(at, prop, "minimum", "maximum", false);
    }
  }
  if (prop.default !== undefined) {
    const problem = propertyProblem(prop as unknown as FlatProperty, prop.default);
    if (problem !== null) fail(`${at}.default`, problem);
  }
}

/** Throws `422 invalid_field` unless `schema` is a §5.2 flat schema. `at` prefixes the path. */
export function assertFlatSchema(schema: unknown, at = "request.schema"): asserts schema is FlatSchema {
  if (!isPlainObject(schema)) fail(at, "must be an object");
  const ref = refPath(schema, at);
  if (ref !== null) fail(ref, "$ref is not supported: write each property out in place");
  const extra = unknownKeyword(schema, ROOT_KEYS);
  if (extra !== undefined) fail(`${at}.${extra}`, "unsupported keyword");
  // §5.2 (v0.6): the schema describes the answer object — the same rule submit applies first.
  const answerable = inputSchemaProblem(schema);
  if (answerable !== null) fail(`${at}.${answerable.at}`, answerable.message);
  if (!isPlainObject(schema.properties)) fail(`${at}.properties`, "must be an object");
  for (const [name, prop] of Object.entries(schema.properties)) assertFlatProperty(`${at}.properties.${name}`, prop);
  if (schema.required !== undefined) {
    if (!Array.isArray(schema.required)) fail(`${at}.required`, "must be an array");
    const seen = new Set<string>();
    schema.required.forEach((name, i) => {
      if (typeof name !== "string" || !Object.hasOwn(schema.properties as object, name)) {
        fail(`${at}.required[${i}]`, "must name a declared property");
      }
      if (seen.has(name)) fail(`${at}.required[${i}]`, "is listed twice");
      seen.add(name);
    });
  }
  if (schema.additionalProperties !== undefined && typeof schema.additionalProperties !== "boolean") {
    fail(`${at}.additionalProperties`, "must be a boolean");
  }
}

/** The choices of a property (its `enum`, titled `oneOf`, or a multi-select's items), or null. */
export function choicesOf(prop: FlatProperty): FlatChoice[] | null {
  if (prop.type === "array") {
    if (prop.items?.anyOf) return prop.items.anyOf.map((c) => ({ value: c.const, label: c.title }));
    return (prop.items?.enum ?? []).map((v) => ({ value: v, label: v }));
  }
  if (prop.oneOf) return prop.oneOf.map((c) => ({ value: c.const, label: c.title }));
  if (prop.enum) return prop.enum.map((v, i) => ({ value: v, label: prop.enumNames?.[i] ?? String(v) }));
  return null;
}

/** Code points, as JSON Schema counts a string's length. */
function lengthOf(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

function isFullDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const day = new Date(Date.UTC(y, mo - 1, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === mo - 1 && day.getUTCDate() === d;
}

const FORMAT_CHECKS: Record<FlatFormat, [(s: string) => boolean, string]> = {
  email: [(s) => EMAIL.test(s), "an email address"],
  uri: [isUri, "an absolute URI"],
  date: [isFullDate, "a date (YYYY-MM-DD)"],
  "date-time": [isDateTime, "a date-time (RFC 3339, e.g. 2026-05-01T09:00:00Z)"],
};

function stringProblem(prop: FlatProperty, v: string): string | null {
  const length = prop.minLength !== undefined || prop.maxLength !== undefined ? lengthOf(v) : 0;
  if (prop.minLength !== undefined && length < prop.minLength)
    return `must be at least ${prop.minLength} character${prop.minLength === 1 ? "" : "s"}`;
  if (prop.maxLength !== undefined && length > prop.maxLength) return `must be at most ${prop.maxLength} characters`;
  if (prop.format !== undefined) {
    const [ok, what] = FORMAT_CHECKS[prop.format];
    if (!ok(v)) return `must be ${what}`;
  }
  if (prop.pattern !== undefined && !patternMatches(prop.pattern, v))
    return `must match the pattern ${JSON.stringify(prop.pattern)}`;
  return null;
}

/** Why `v` is not a valid value of `prop`, or null. */
function propertyProblem(prop: FlatProperty, v: unknown): string | null {
  const choices = choicesOf(prop);
  if (prop.type === "array") {
    if (!Array.isArray(v)) return "must be an array of the listed choices";
    const members = new Set((choices ?? []).map((c) => c.value));
    const bad = v.find((x) => typeof x !== "string" || !members.has(x));
    if (bad !== undefined) return `${JSON.stringify(bad)} is not one of the listed choices`;
    if (new Set(v).size !== v.length) return "must not list a choice twice";
    if (prop.minItems !== undefined && v.length < prop.minItems)
      return `must list at least ${prop.minItems} choice${prop.minItems === 1 ? "" : "s"}`;
    if (prop.maxItems !== undefined && v.length > prop.maxItems) return `must list at most ${prop.maxItems} choices`;
    return null;
  }
  if (!fits(prop.type, v)) return `must be ${prop.type === "integer" ? "an integer" : `a ${prop.type}`}`;
  if (choices !== null && !choices.some((c) => c.value === v))
    return `must be one of ${choices.map((c) => JSON.stringify(c.value)).join(", ")}`;
  if (typeof v === "string") return stringProblem(prop, v);
  if (typeof v === "number") {
    if (prop.minimum !== undefined && v < prop.minimum) return `must be at least ${prop.minimum}`;
    if (prop.maximum !== undefined && v > prop.maximum) return `must be at most ${prop.maximum}`;
  }
  return null;
}

/**
 * Validates `value` against a flat schema; returns a human-readable problem, or null when valid.
 * Throws like `assertFlatSchema` if the schema itself is not flat.
 */
export function validateFlat(schema: unknown, value: unknown): string | null {
  assertFlatSchema(schema);
  if (!isPlainObject(value)) return "must be an object";
  for (const name of schema.required ?? []) {
    if (!Object.hasOwn(value, name)) return `${name}: is required`;
  }
  for (const [name, v] of Object.entries(value)) {
    const prop = Object.hasOwn(schema.properties, name) ? schema.properties[name] : undefined;
    if (prop === undefined) {
      if (schema.additionalProperties === false) return `${name}: is not an allowed property`;
      continue;
    }
    const problem = propertyProblem(prop, v);
    if (problem !== null) return `${name}: ${problem}`;
  }
  return null;
}

/** §5.2 / §9.6: the properties an agent marked `x-ma2h-sensitive: true`. */
export function sensitiveProperties(schema: unknown): string[] {
  if (!isPlainObject(schema) || !isPlainObject(schema.properties)) return [];
  return Object.entries(schema.properties)
    .filter(([, prop]) => isPlainObject(prop) && prop["x-ma2h-sensitive"] === true)
    .map(([name]) => name);
}

/**
 * A `pattern` is an agent's regular expression run on a person's text, in a process that serves
 * everyone: a catastrophically backtracking one must not stall it. So the match runs in a `node:vm`
 * context with a time limit, and a pattern that overruns it counts as not matching (the answer is
 * refused with the pattern named; docs/decisions/protocol.md). The limit is wall time: on a busy
 * machine a form-field pattern can be descheduled past it, so an overrun is tried once more, and
 * only a pattern that overruns twice is cut off.
 */
export const PATTERN_TIME_LIMIT_MS = 100;
let sandbox: { context: vm.Context; test: (pattern: string, value: string) => boolean } | null = null;

function patternMatches(pattern: string, value: string): boolean {
  if (sandbox === null) {
    const context = vm.createContext(Object.create(null));
    sandbox = { context, test: vm.runInContext('(p, v) => new RegExp(p, "u").test(v)', context) };
  }
  const box = sandbox;
  box.context.args = [pattern, value];
  box.context.test = box.test;
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        return vm.runInContext("test(args[0], args[1])", box.context, { timeout: PATTERN_TIME_LIMIT_MS }) === true;
      } catch (err) {
        if (attempt >= 2 || (err as { code?: string }).code !== "ERR_SCRIPT_EXECUTION_TIMEOUT") return false;
      }
    }
  } finally {
    box.context.args = undefined;
  }
}

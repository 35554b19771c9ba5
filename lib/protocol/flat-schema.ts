/**
 * The §5.2 "flat" input schema of an ask in mode `input`: one object of scalar properties
 * (string / number / integer / boolean, optionally an enum), so a human form can render it and the
 * Hub can validate answers and `default_on_expire` without a general JSON Schema engine.
 *
 * Accepted shape (anything else → `422 invalid_field` at submit):
 *   { type?: "object" | [..."object"...], properties: { <name>: { type, enum?, title?, description?,
 *     "x-ma2h-sensitive"? } } (at least one), required?: string[], additionalProperties?: boolean }
 * v0.6 (§5.2): `type` may be absent or a type array admitting an object (`["object","null"]`); the
 * answer is an object either way (§6).
 * Annotation keys (`title`, `description`, `$schema`, `$comment`, `x-*`) are tolerated; any other
 * keyword — nesting, `$ref`, combinators, and validation keywords this validator would not enforce
 * (pattern, minLength, …) — is refused rather than silently ignored.
 */
import { inputSchemaProblem, isPlainObject } from "./input-schema";
import { HubError } from "./errors";

export type FlatType = "string" | "number" | "integer" | "boolean";
export interface FlatProperty {
  type: FlatType;
  enum?: Array<string | number | boolean>;
  title?: string;
  description?: string;
  "x-ma2h-sensitive"?: boolean;
}
export interface FlatSchema {
  type?: "object" | string[];
  properties: Record<string, FlatProperty>;
  required?: string[];
  additionalProperties?: boolean;
}

const FLAT_TYPES: readonly string[] = ["string", "number", "integer", "boolean"];
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
const PROPERTY_KEYS = ["type", "enum", "title", "description", "$comment", "x-ma2h-sensitive"];

function fits(type: FlatType, v: unknown): boolean {
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

function assertFlatProperty(at: string, prop: unknown): void {
  if (!isPlainObject(prop)) fail(at, "must be an object");
  const extra = unknownKeyword(prop, PROPERTY_KEYS);
  if (extra !== undefined) fail(`${at}.${extra}`, "unsupported keyword");
  if (typeof prop.type !== "string" || !FLAT_TYPES.includes(prop.type))
    fail(`${at}.type`, "must be string, number, integer or boolean");
  const type = prop.type as FlatType;
  if (prop.enum !== undefined) {
    if (!Array.isArray(prop.enum) || prop.enum.length === 0) fail(`${at}.enum`, "must be a non-empty array");
    prop.enum.forEach((v, i) => {
      if (!fits(type, v)) fail(`${at}.enum[${i}]`, `must be a ${type}`);
    });
  }
  for (const key of ["title", "description"] as const) {
    if (prop[key] !== undefined && typeof prop[key] !== "string") fail(`${at}.${key}`, "must be a string");
  }
  if (prop["x-ma2h-sensitive"] !== undefined && typeof prop["x-ma2h-sensitive"] !== "boolean") {
    fail(`${at}.x-ma2h-sensitive`, "must be a boolean");
  }
}

/** Throws `422 invalid_field` unless `schema` is a §5.2 flat schema. `at` prefixes the path. */
export function assertFlatSchema(schema: unknown, at = "request.schema"): asserts schema is FlatSchema {
  if (!isPlainObject(schema)) fail(at, "must be an object");
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
    if (!fits(prop.type, v)) return `${name}: must be ${prop.type === "integer" ? "an integer" : `a ${prop.type}`}`;
    if (prop.enum !== undefined && !prop.enum.includes(v as string | number | boolean)) {
      return `${name}: must be one of ${prop.enum.map((e) => JSON.stringify(e)).join(", ")}`;
    }
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

/**
 * §5.2 (v0.6): an input ask's `schema` describes the ANSWER OBJECT (§6 fixes the input answer as an
 * object) — a declared `type` admits an object and `properties` holds at least one entry. Its own
 * module, importing nothing, because both the message schema and the Hub's submit-time check use it.
 */
/** The seven JSON Schema type names: a `type` array of anything else is not a `type` keyword. */
const JSON_TYPES: readonly string[] = ["null", "boolean", "object", "array", "number", "string", "integer"];

/** A JSON object: not null, not an array. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * §5.2: does a declared `type` admit an object? The string "object", or a well-formed type array
 * (known names, no repeats, non-empty) containing it. `["object", 42]` admits nothing (sv-076 family).
 */
export function typeAdmitsObject(type: unknown): boolean {
  if (type === "object") return true;
  if (!Array.isArray(type) || type.length === 0) return false;
  if (!type.every((t) => typeof t === "string" && JSON_TYPES.includes(t))) return false;
  return new Set(type).size === type.length && type.includes("object");
}

/**
 * §5.2 (v0.6): why an input `schema` cannot describe the answer object, or null when it can:
 * a declared `type` must admit an object, and `properties` must hold at least one entry.
 */
export function inputSchemaProblem(
  schema: Record<string, unknown>,
): { at: "type" | "properties"; message: string } | null {
  if (schema.type !== undefined && !typeAdmitsObject(schema.type)) {
    return {
      at: "type",
      message:
        'must admit an object ("object", or a type array containing it): the answer to an input ask is an object (§5.2, §6)',
    };
  }
  if (!isPlainObject(schema.properties) || Object.keys(schema.properties).length === 0) {
    return {
      at: "properties",
      message: "must define at least one property: an input ask needs something to fill in (§5.2)",
    };
  }
  return null;
}

/**
 * The generated input form (§5.2 flat schema) on the server side: what the browser sends is raw
 * form values (strings, and booleans for checkboxes); they are turned into typed values here, from
 * the schema, so a value's type never depends on the browser.
 */
import type { RawInput } from "./form-values";
import type { FieldView } from "./view";

export type { RawInput };

export function coerceInput(
  fields: FieldView[],
  raw: RawInput,
): { value: Record<string, unknown> } | { problem: string } {
  const value: Record<string, unknown> = {};
  for (const f of fields) {
    const r = raw[f.name];
    const label = f.title ?? f.name;
    if (f.type === "array") {
      // A multi-select: the chosen values as sent; membership, count and repeats are the verb's
      // check (packages/protocol/src/flat-schema.ts), the same for the inbox and /v1.
      const chosen = Array.isArray(r) ? r : typeof r === "string" && r !== "" ? [r] : [];
      if (chosen.length === 0 && f.required && (f.minItems ?? 0) > 0) return { problem: `${label} is required` };
      if (chosen.length > 0 || f.required) value[f.name] = chosen;
      continue;
    }
    if (f.type === "boolean" && f.enum === null) {
      value[f.name] = r === true || r === "true" || r === "on";
      continue;
    }
    const text = typeof r === "string" ? r : r === undefined || Array.isArray(r) ? "" : String(r);
    if (text === "") {
      if (f.required) return { problem: `${label} is required` };
      continue;
    }
    if (f.enum !== null) {
      const member = f.enum.find((e) => String(e) === text);
      if (member === undefined) return { problem: `${label} must be one of ${f.enum.join(", ")}` };
      value[f.name] = member;
    } else if (f.type === "number" || f.type === "integer") {
      const n = Number(text.trim());
      if (text.trim() === "" || !Number.isFinite(n)) return { problem: `${label} must be a number` };
      if (f.type === "integer" && !Number.isInteger(n)) return { problem: `${label} must be a whole number` };
      value[f.name] = n;
    } else {
      value[f.name] = text;
    }
  }
  return { value };
}

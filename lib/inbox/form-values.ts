/**
 * Raw values of the generated input form (§5.2 flat schema), shared by the browser form and the
 * server's coercion — pure, so the client bundle can import it.
 */
import type { FieldView } from "./view";

/** A text or single-select field's string, a checkbox's boolean, a multi-select's chosen values. */
export type RawInput = Record<string, string | boolean | string[] | undefined>;

/** The inbox's cap on text a person types (a comment, an answer in their own words), in characters. */
export const MAX_TYPED_CHARS = 10_000;

/**
 * The raw form values of a prefill: `default_on_expire` (what expiry would apply) where it names the
 * field, else the schema's own `default`.
 */
export function prefillToRaw(fields: FieldView[], prefill: Record<string, unknown> | null): RawInput {
  const raw: RawInput = {};
  for (const f of fields) {
    const given = prefill?.[f.name];
    const v = given === undefined || given === null ? f.default : given;
    if (v === undefined || v === null) continue;
    if (f.type === "array") raw[f.name] = Array.isArray(v) ? v.map(String) : [];
    else raw[f.name] = f.type === "boolean" && f.enum === null ? v === true : String(v);
  }
  return raw;
}

/**
 * Raw values of the generated input form (§5.2 flat schema), shared by the browser form and the
 * server's coercion — pure, so the client bundle can import it.
 */
import type { FieldView } from "./view";

export type RawInput = Record<string, string | boolean | undefined>;

/** The inbox's cap on text a person types (a comment, an answer in their own words), in characters. */
export const MAX_TYPED_CHARS = 10_000;

/** The raw form values a prefill (`default_on_expire`) puts in the form. */
export function prefillToRaw(fields: FieldView[], prefill: Record<string, unknown> | null): RawInput {
  const raw: RawInput = {};
  for (const f of fields) {
    const v = prefill?.[f.name];
    if (v === undefined || v === null) continue;
    raw[f.name] = f.type === "boolean" && f.enum === null ? v === true : String(v);
  }
  return raw;
}

/**
 * Reading a submitted form in a server action. A Server Action can be called with any arguments
 * (a crafted request names it by id), so the "form" may not be a FormData at all: then every
 * field is missing, and the action refuses as it would an empty form — never a 500.
 */

/** A text field of a submitted form; a missing field, a file, or no form at all is "". */
export function field(form: FormData, name: string): string {
  const v = form instanceof FormData ? form.get(name) : null;
  return typeof v === "string" ? v : "";
}

/** Whether the form has the field at all (a checkbox that is ticked). */
export function present(form: FormData, name: string): boolean {
  return form instanceof FormData && form.has(name);
}

/** Every text value of a repeated field (ticked checkboxes sharing a name); none without a form. */
export function fieldsAll(form: FormData, name: string): string[] {
  if (!(form instanceof FormData)) return [];
  return form.getAll(name).filter((v): v is string => typeof v === "string");
}

/** A text field of a submitted form; a missing field or a file is "". */
export function field(form: FormData, name: string): string {
  const v = form.get(name);
  return typeof v === "string" ? v : "";
}

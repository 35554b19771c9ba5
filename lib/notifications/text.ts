/** Text helpers of every notification mail: HTML escaping and header-safe single lines. */

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Header-safe: no line breaks in a subject. */
export function oneLine(s: string): string {
  return s.replace(/[\r\n\u2028\u2029]+/g, " ").trim();
}

/** Text helpers of every notification: HTML escaping, header-safe single lines, the item's link. */

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Header-safe: no line breaks in a subject. */
export function oneLine(s: string): string {
  return s.replace(/[\r\n\u2028\u2029]+/g, " ").trim();
}

/** The item's page in the Hub's inbox (the same `review_url` the submit ack returns). */
export function itemUrl(publicUrl: string, id: string): string {
  return `${publicUrl}/inbox/${id}`;
}

/** Keyboard helpers shared by the list and item pages. */

/** True while the person is typing in a field: single-letter shortcuts must not fire then. */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag !== "INPUT") return false;
  const type = (target as HTMLInputElement).type;
  return !["checkbox", "radio", "button", "submit", "reset"].includes(type);
}

/** A plain key press (no Ctrl/Alt/Meta), so browser and OS shortcuts keep working. */
export function isPlain(e: KeyboardEvent): boolean {
  return !e.ctrlKey && !e.altKey && !e.metaKey;
}

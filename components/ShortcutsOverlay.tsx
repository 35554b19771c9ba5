"use client";
import { useEffect } from "react";

export const LIST_SHORTCUTS: Array<[string, string]> = [
  ["j / ↓", "next item"],
  ["k / ↑", "previous item"],
  ["Enter / o", "open the item (on a group of similar asks: expand / collapse it)"],
  ["a", "approve / answer (confirm: approve; select: first option; input: open the form)"],
  ["d", "decline (ask) or dismiss (task) — the selection, if any, else the current item"],
  ["c", "complete a task — the selection, if any, else the current item"],
  ["e", "open the item and edit its answer"],
  ["x", "select / unselect the item (on a group of similar asks: all of them)"],
  ["1 – 9", "answer the selected asks, or the group under the cursor, with option 1–9 (similar asks)"],
  ["/", "search titles"],
  ["?", "show / hide these shortcuts"],
  ["Esc", "close this, or clear the selection"],
];

export const ITEM_SHORTCUTS: Array<[string, string]> = [
  [
    "a",
    "approve / answer (confirm: approve; select: the focused or first option, or your own words; input: focus the form; task: complete)",
  ],
  ["↑ ↓ ← → Home End", "in the options: move to a choice and select it (Space selects, Enter answers)"],
  ["d", "decline (ask) or dismiss (task)"],
  ["e", "edit: focus the first field or the comment"],
  ["u / Esc", "back to the inbox"],
  ["?", "show / hide these shortcuts"],
];

export function ShortcutsOverlay({ shortcuts, onClose }: { shortcuts: Array<[string, string]>; onClose: () => void }) {
  useEffect(() => {
    const prev = document.activeElement as HTMLElement | null;
    document.getElementById("shortcuts-close")?.focus();
    return () => prev?.focus?.();
  }, []);
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: a backdrop click is the pointer's way out; Escape closes it from the keyboard
    <div className="overlay" role="dialog" aria-modal="true" aria-labelledby="shortcuts-heading" onClick={onClose}>
      {/* biome-ignore lint/a11y/noStaticElementInteractions lint/a11y/useKeyWithClickEvents: only stops a click inside the card from reaching the backdrop */}
      <div className="overlay-card" data-testid="shortcuts" onClick={(e) => e.stopPropagation()}>
        <h2 id="shortcuts-heading">Keyboard shortcuts</h2>
        <dl className="shortcut-list">
          {shortcuts.map(([key, what]) => (
            <div key={key}>
              <dt>
                <kbd>{key}</kbd>
              </dt>
              <dd>{what}</dd>
            </div>
          ))}
        </dl>
        <button type="button" id="shortcuts-close" className="btn" onClick={onClose}>
          Close
        </button>
      </div>
    </div>
  );
}

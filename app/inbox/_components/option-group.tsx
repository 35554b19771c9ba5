"use client";
/**
 * The choices of a select/confirm ask (§5.2) as ONE radio group, per the WAI-ARIA radio group
 * pattern: a single tab stop (roving tabindex — the checked choice, else the first), the arrow keys
 * move AND select (wrapping), Home/End go to the first/last, Space selects, Enter answers with the
 * focused choice (as Enter submits a form from a native radio). When the ask allows the free-form
 * answer (`allow_edit`, §5.2 v0.6), "None of these — answer in my own words" is the group's last
 * choice, reached the same way; its text field is rendered by the form, right after the group.
 */
import { useRef, type KeyboardEvent } from "react";
import type { AskView } from "@/lib/inbox/view";

export const FREE_FORM_LABEL = "None of these — answer in my own words";

interface Props {
  ask: AskView;
  /** Index of the checked choice: an option's index, `ask.options.length` for the free-form choice, or -1. */
  checked: number;
  pending: boolean;
  /** `typed`: chosen by the keyboard (focus stays in the group); otherwise by a pointer. */
  onChoose: (index: number, typed: boolean) => void;
  /** Enter on a choice: answer with it. */
  onEnter: (index: number) => void;
  /** id of the free-form text field, for aria-controls. */
  freeFormFieldId: string;
}

export function OptionGroup({ ask, checked, pending, onChoose, onEnter, freeFormFieldId }: Props) {
  const refs = useRef<Array<HTMLButtonElement | null>>([]);
  const count = ask.options.length + (ask.freeForm ? 1 : 0);
  const tabStop = checked >= 0 && checked < count ? checked : 0;

  const move = (to: number) => {
    const i = (to + count) % count;
    refs.current[i]?.focus();
    onChoose(i, true);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.ctrlKey || e.altKey || e.metaKey || pending) return;
    const at = refs.current.indexOf(document.activeElement as HTMLButtonElement | null);
    if (at < 0) return;
    const to = { ArrowDown: at + 1, ArrowRight: at + 1, ArrowUp: at - 1, ArrowLeft: at - 1, Home: 0, End: count - 1 }[
      e.key
    ];
    if (to !== undefined) {
      e.preventDefault();
      return move(to);
    }
    if (e.key === " ") {
      e.preventDefault();
      return onChoose(at, true);
    }
    if (e.key === "Enter") {
      e.preventDefault();
      onEnter(at);
    }
  };

  return (
    <div className="options" role="radiogroup" aria-label="Options" onKeyDown={onKeyDown}>
      {ask.options.map((o, i) => (
        // biome-ignore lint/a11y/useSemanticElements: option cards with descriptions, as the WAI-ARIA radio group pattern (roving tabindex above)
        <button
          key={o.value}
          ref={(el) => {
            refs.current[i] = el;
          }}
          type="button"
          role="radio"
          aria-checked={checked === i}
          tabIndex={i === tabStop ? 0 : -1}
          className={`option${checked === i ? " option-chosen" : ""}`}
          data-testid={`option-${o.value}`}
          data-option={o.value}
          disabled={pending}
          onClick={(e) => onChoose(i, e.detail === 0)}
        >
          <span className="option-label">{o.label}</span>
          {o.description && <span className="option-desc">{o.description}</span>}
          {ask.defaultOnExpire === o.value && <span className="option-default">default on expiry</span>}
        </button>
      ))}
      {ask.freeForm && (
        // biome-ignore lint/a11y/useSemanticElements: the free-form choice is the radio group's last card (WAI-ARIA radio group pattern)
        <button
          ref={(el) => {
            refs.current[ask.options.length] = el;
          }}
          type="button"
          role="radio"
          aria-checked={checked === ask.options.length}
          aria-controls={freeFormFieldId}
          tabIndex={ask.options.length === tabStop ? 0 : -1}
          className={`option option-free${checked === ask.options.length ? " option-chosen" : ""}`}
          data-testid="option-free-form"
          data-free-form="true"
          disabled={pending}
          onClick={(e) => onChoose(ask.options.length, e.detail === 0)}
        >
          <span className="option-label">{FREE_FORM_LABEL}</span>
          <span className="option-desc">
            The agent receives your text exactly as typed, marked as not one of its options.
          </span>
        </button>
      )}
    </div>
  );
}

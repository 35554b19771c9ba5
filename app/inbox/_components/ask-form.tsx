"use client";
/**
 * The answer form of an ask (§5.2): the options with their descriptions as one radio group
 * (select / confirm; plus the free-form answer where `allow_edit` is honoured), or a form generated
 * from the flat schema (input); an optional comment; decline. `permissions` decide which controls
 * exist (`allow_edit` is ignored for input, §5.2 v0.6). Sensitive fields are password inputs and
 * never leave this form except in the answer itself.
 */
import { useRef, type Dispatch, type SetStateAction } from "react";
import type { Affordances } from "@/lib/inbox/affordances";
import { MAX_TYPED_CHARS } from "@/lib/inbox/form-values";
import type { AskView, FieldView } from "@/lib/inbox/view";
import { OptionGroup } from "./option-group";
import type { FormState } from "./form-state";

export const FREE_FORM_FIELD_ID = "free-form-answer";

interface Props {
  ask: AskView;
  can: Affordances;
  form: FormState;
  setForm: Dispatch<SetStateAction<FormState>>;
  pending: boolean;
  /** Why the free-form answer cannot be sent (blank), shown under its field; null when fine. */
  freeFormProblem: string | null;
  onAnswer: (value?: string) => void;
  onDecline: () => void;
}

export function AskForm({ ask, can, form, setForm, pending, freeFormProblem, onAnswer, onDecline }: Props) {
  const freeField = useRef<HTMLTextAreaElement>(null);
  const canAccept = can.answer && ask.defaultOnExpire !== null;
  const freeIndex = ask.options.length;
  const checked = form.freeForm ? freeIndex : ask.options.findIndex((o) => o.value === form.option);

  const choose = (index: number, typed: boolean) => {
    if (index === freeIndex) {
      setForm((f) => ({ ...f, option: null, freeForm: true }));
      // A click goes on to the text; the arrow keys stay in the group (Tab reaches the text).
      if (!typed) requestAnimationFrame(() => freeField.current?.focus());
    } else {
      setForm((f) => ({ ...f, option: ask.options[index]?.value ?? null, freeForm: false }));
    }
  };
  const enter = (index: number) => {
    if (index !== freeIndex) return onAnswer(ask.options[index]?.value);
    // Already chosen: send the text (blank → the panel says so and focuses it); else go to the text.
    if (form.freeForm) return onAnswer();
    choose(index, false);
  };

  return (
    <form
      className="answer"
      onSubmit={(e) => {
        e.preventDefault();
        onAnswer();
      }}
    >
      <h2>{can.answer ? "Your answer" : "Respond"}</h2>
      {can.answer && ask.mode !== "input" && (
        <OptionGroup
          ask={ask}
          checked={checked}
          pending={pending}
          onChoose={choose}
          onEnter={enter}
          freeFormFieldId={FREE_FORM_FIELD_ID}
        />
      )}
      {can.answer && ask.freeForm && form.freeForm && (
        <div className="field free-form">
          <label htmlFor={FREE_FORM_FIELD_ID}>Your answer, in your own words</label>
          <textarea
            id={FREE_FORM_FIELD_ID}
            ref={freeField}
            data-testid="free-form-text"
            rows={3}
            maxLength={MAX_TYPED_CHARS}
            value={form.freeText}
            disabled={pending}
            aria-invalid={freeFormProblem !== null}
            aria-describedby={`${FREE_FORM_FIELD_ID}-hint${freeFormProblem ? ` ${FREE_FORM_FIELD_ID}-problem` : ""}`}
            onChange={(e) => setForm((f) => ({ ...f, freeText: e.target.value }))}
            onKeyDown={(e) => {
              // Ctrl/⌘+Enter sends, as Enter does on a choice; a plain Enter is a new line.
              if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                onAnswer();
              }
            }}
          />
          <span className="field-desc" id={`${FREE_FORM_FIELD_ID}-hint`}>
            Sent exactly as typed; the agent is told it is not one of its options. <kbd>Ctrl</kbd>+<kbd>Enter</kbd>{" "}
            sends.
          </span>
          {freeFormProblem && (
            <span
              className="form-error"
              id={`${FREE_FORM_FIELD_ID}-problem`}
              role="alert"
              data-testid="free-form-error"
            >
              {freeFormProblem}
            </span>
          )}
        </div>
      )}
      {can.answer && ask.mode === "input" && (
        <div className="fields">
          {ask.fields.map((f) => (
            <Field
              key={f.name}
              field={f}
              value={form.input[f.name]}
              onChange={(v) => setForm((s) => ({ ...s, input: { ...s.input, [f.name]: v } }))}
            />
          ))}
        </div>
      )}
      {!can.answer && <p className="hint">This ask only allows declining (permissions.allow_respond is false).</p>}
      <label className="comment">
        <span>Comment (optional)</span>
        <textarea
          data-testid="comment"
          rows={3}
          value={form.comment}
          onChange={(e) => setForm((f) => ({ ...f, comment: e.target.value }))}
        />
      </label>
      <div className="actions">
        {can.answer && (
          <button
            type="submit"
            className="btn btn-primary"
            data-testid="submit-answer"
            disabled={pending || (ask.mode !== "input" && form.option === null && !form.freeForm)}
          >
            {pending ? "Sending…" : "Submit answer"}
          </button>
        )}
        {canAccept && (
          <button
            type="button"
            className="btn"
            data-testid="accept-default"
            disabled={pending}
            onClick={() => (ask.mode === "input" ? onAnswer() : onAnswer(ask.defaultOnExpire as string))}
            title="Answer with the agent's suggested value (its default on expiry)"
          >
            Accept suggestion{ask.defaultSummary ? `: ${ask.defaultSummary}` : ""}
          </button>
        )}
        {can.decline && (
          <button type="button" className="btn btn-danger" data-testid="decline" disabled={pending} onClick={onDecline}>
            Decline
          </button>
        )}
      </div>
    </form>
  );
}

/** The browser's input type for a string `format` (date-time stays text: RFC 3339 needs a zone). */
const INPUT_TYPE: Record<string, string> = { email: "email", uri: "url", date: "date" };
const FORMAT_HINT: Record<string, string> = {
  email: "An email address.",
  uri: "An absolute URL, e.g. https://example.com/x.",
  date: "A date.",
  "date-time": "A date and time with its zone, e.g. 2026-05-01T09:00:00Z.",
};

/** What the schema asks of a value, in words (the Hub checks it again on every resolve). */
function constraintHint(f: FieldView): string | null {
  const parts: string[] = [];
  if (f.format) parts.push(FORMAT_HINT[f.format] ?? "");
  if (f.minLength !== null && f.maxLength !== null) parts.push(`${f.minLength}–${f.maxLength} characters.`);
  else if (f.minLength !== null) parts.push(`At least ${f.minLength} characters.`);
  else if (f.maxLength !== null) parts.push(`At most ${f.maxLength} characters.`);
  if (f.minimum !== null && f.maximum !== null) parts.push(`From ${f.minimum} to ${f.maximum}.`);
  else if (f.minimum !== null) parts.push(`At least ${f.minimum}.`);
  else if (f.maximum !== null) parts.push(`At most ${f.maximum}.`);
  if (f.minItems !== null && f.maxItems !== null) parts.push(`Choose ${f.minItems}–${f.maxItems}.`);
  else if (f.minItems !== null) parts.push(`Choose at least ${f.minItems}.`);
  else if (f.maxItems !== null) parts.push(`Choose at most ${f.maxItems}.`);
  if (f.pattern !== null) parts.push(`Must match ${f.pattern}`);
  const text = parts.filter(Boolean).join(" ");
  return text === "" ? null : text;
}

function Field({
  field: f,
  value,
  onChange,
}: {
  field: FieldView;
  value: string | boolean | string[] | undefined;
  onChange: (v: string | boolean | string[]) => void;
}) {
  const id = `field-${f.name}`;
  const label = (
    <>
      {f.title ?? f.name}
      {f.required && (
        <span className="required" aria-hidden="true">
          {" "}
          *
        </span>
      )}
      {f.sensitive && <span className="sensitive-hint"> · hidden, never logged</span>}
      {f.hiddenDefault && <span className="sensitive-hint"> · left blank, the agent's suggestion is sent</span>}
    </>
  );
  const hint = constraintHint(f);
  const help =
    f.description || hint ? (
      <span className="field-desc" id={`${id}-desc`}>
        {[f.description, hint].filter(Boolean).join(" ")}
      </span>
    ) : null;
  const describedBy = help ? `${id}-desc` : undefined;
  if (f.type === "boolean" && f.enum === null) {
    return (
      <div className="field field-check">
        <input
          id={id}
          type="checkbox"
          data-testid={id}
          checked={value === true}
          aria-describedby={describedBy}
          onChange={(e) => onChange(e.target.checked)}
        />
        <label htmlFor={id}>{label}</label>
        {help}
      </div>
    );
  }
  if (f.type === "array") {
    // A multi-select: one checkbox per choice, in the agent's order.
    const chosen = Array.isArray(value) ? value : [];
    return (
      <fieldset className="field field-multi" data-testid={`multi-${f.name}`} aria-describedby={describedBy}>
        <legend>{label}</legend>
        {(f.choices ?? []).map((c, i) => {
          const v = String(c.value);
          return (
            <label key={v} className="choice" htmlFor={`${id}-${i}`}>
              <input
                id={`${id}-${i}`}
                className="choice-box"
                type="checkbox"
                data-testid={`${id}-${v}`}
                checked={chosen.includes(v)}
                onChange={(e) =>
                  onChange(e.target.checked ? [...chosen.filter((x) => x !== v), v] : chosen.filter((x) => x !== v))
                }
              />{" "}
              {c.label}
            </label>
          );
        })}
        {help}
      </fieldset>
    );
  }
  const text = typeof value === "string" ? value : "";
  // A masked field with a suggestion the server keeps (§9.6) may be left blank: blank sends it.
  const required = f.required && !f.hiddenDefault;
  const numeric = f.type === "number" || f.type === "integer";
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {f.choices !== null ? (
        <select
          id={id}
          data-testid={id}
          value={text}
          required={required}
          aria-describedby={describedBy}
          onChange={(e) => onChange(e.target.value)}
        >
          <option value="">{f.hiddenDefault ? "(the agent's suggestion)" : f.required ? "Choose…" : "—"}</option>
          {f.choices.map((c) => (
            <option key={String(c.value)} value={String(c.value)}>
              {c.label}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          data-testid={id}
          type={f.sensitive ? "password" : numeric ? "number" : f.format ? (INPUT_TYPE[f.format] ?? "text") : "text"}
          step={f.type === "integer" ? 1 : f.type === "number" ? "any" : undefined}
          min={numeric ? (f.minimum ?? undefined) : undefined}
          max={numeric ? (f.maximum ?? undefined) : undefined}
          minLength={f.minLength ?? undefined}
          maxLength={f.maxLength ?? undefined}
          inputMode={f.type === "integer" ? "numeric" : f.type === "number" ? "decimal" : undefined}
          autoComplete={f.sensitive ? "new-password" : "off"}
          spellCheck={f.sensitive ? false : undefined}
          required={required}
          placeholder={f.hiddenDefault ? "the agent's suggestion (hidden)" : undefined}
          aria-describedby={describedBy}
          value={text}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
      {help}
    </div>
  );
}

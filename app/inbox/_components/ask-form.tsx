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

function Field({
  field: f,
  value,
  onChange,
}: {
  field: FieldView;
  value: string | boolean | undefined;
  onChange: (v: string | boolean) => void;
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
  const help = f.description ? <span className="field-desc">{f.description}</span> : null;
  if (f.type === "boolean" && f.enum === null) {
    return (
      <div className="field field-check">
        <input
          id={id}
          type="checkbox"
          data-testid={id}
          checked={value === true}
          onChange={(e) => onChange(e.target.checked)}
        />
        <label htmlFor={id}>{label}</label>
        {help}
      </div>
    );
  }
  const text = typeof value === "string" ? value : "";
  // A masked field with a suggestion the server keeps (§9.6) may be left blank: blank sends it.
  const required = f.required && !f.hiddenDefault;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {f.enum !== null ? (
        <select id={id} data-testid={id} value={text} required={required} onChange={(e) => onChange(e.target.value)}>
          <option value="">{f.hiddenDefault ? "(the agent's suggestion)" : f.required ? "Choose…" : "—"}</option>
          {f.enum.map((v) => (
            <option key={String(v)} value={String(v)}>
              {String(v)}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          data-testid={id}
          type={f.sensitive ? "password" : f.type === "string" ? "text" : "number"}
          step={f.type === "integer" ? 1 : f.type === "number" ? "any" : undefined}
          inputMode={f.type === "integer" ? "numeric" : f.type === "number" ? "decimal" : undefined}
          autoComplete={f.sensitive ? "new-password" : "off"}
          spellCheck={f.sensitive ? false : undefined}
          required={required}
          placeholder={f.hiddenDefault ? "the agent's suggestion (hidden)" : undefined}
          value={text}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
      {help}
    </div>
  );
}

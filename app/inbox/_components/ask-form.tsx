"use client";
/**
 * The answer form of an ask (§5.2): options with their descriptions (select / confirm), or a form
 * generated from the flat schema (input); an optional comment; decline. `permissions` decide which
 * controls exist. Sensitive fields are
 * password inputs and never leave this form except in the answer itself.
 */
import type { Dispatch, SetStateAction } from "react";
import type { Affordances } from "@/lib/inbox/affordances";
import type { AskView, FieldView } from "@/lib/inbox/view";
import type { FormState } from "./resolve-panel";

interface Props {
  ask: AskView;
  can: Affordances;
  form: FormState;
  setForm: Dispatch<SetStateAction<FormState>>;
  pending: boolean;
  onAnswer: (value?: string) => void;
  onDecline: () => void;
}

export function AskForm({ ask, can, form, setForm, pending, onAnswer, onDecline }: Props) {
  const prefilled = ask.defaultOnExpire !== null;
  const locked = false;
  const canAccept = can.answer && prefilled;
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
        <div className="options" role="radiogroup" aria-label="Options">
          {ask.options.map((o) => (
            <button
              key={o.value}
              type="button"
              role="radio"
              aria-checked={form.option === o.value}
              className={`option${form.option === o.value ? " option-chosen" : ""}`}
              data-testid={`option-${o.value}`}
              data-option={o.value}
              disabled={pending}
              onClick={() => setForm((f) => ({ ...f, option: o.value }))}
            >
              <span className="option-label">{o.label}</span>
              {o.description && <span className="option-desc">{o.description}</span>}
              {ask.defaultOnExpire === o.value && <span className="option-default">default on expiry</span>}
            </button>
          ))}
        </div>
      )}
      {can.answer && ask.mode === "input" && (
        <div className="fields">
          {locked && <p className="hint">Suggested by the agent; this ask does not allow editing it (accept or decline).</p>}
          {ask.fields.map((f) => (
            <Field key={f.name} field={f} value={form.input[f.name]} locked={locked} onChange={(v) => setForm((s) => ({ ...s, input: { ...s.input, [f.name]: v } }))} />
          ))}
        </div>
      )}
      {!can.answer && <p className="hint">This ask only allows declining (permissions.allow_respond is false).</p>}
      <label className="comment">
        <span>Comment (optional)</span>
        <textarea data-testid="comment" rows={3} value={form.comment} onChange={(e) => setForm((f) => ({ ...f, comment: e.target.value }))} />
      </label>
      <div className="actions">
        {can.answer && (
          <button type="submit" className="btn btn-primary" data-testid="submit-answer" disabled={pending || (ask.mode !== "input" && form.option === null)}>
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

function Field({ field: f, value, locked, onChange }: { field: FieldView; value: string | boolean | undefined; locked: boolean; onChange: (v: string | boolean) => void }) {
  const id = `field-${f.name}`;
  const label = (
    <>
      {f.title ?? f.name}
      {f.required && <span className="required" aria-label="required"> *</span>}
      {f.sensitive && <span className="sensitive-hint"> · hidden, never logged</span>}
    </>
  );
  const help = f.description ? <span className="field-desc">{f.description}</span> : null;
  if (f.type === "boolean" && f.enum === null) {
    return (
      <div className="field field-check">
        <input id={id} type="checkbox" data-testid={id} checked={value === true} disabled={locked} onChange={(e) => onChange(e.target.checked)} />
        <label htmlFor={id}>{label}</label>
        {help}
      </div>
    );
  }
  const text = typeof value === "string" ? value : "";
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {f.enum !== null ? (
        <select id={id} data-testid={id} value={text} required={f.required} disabled={locked} onChange={(e) => onChange(e.target.value)}>
          <option value="">{f.required ? "Choose…" : "—"}</option>
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
          required={f.required}
          readOnly={locked}
          value={text}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
      {help}
    </div>
  );
}

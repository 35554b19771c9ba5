"use client";
/** A task (§5.3): tick the checklist, then complete or dismiss, with an optional comment. */
import type { Dispatch, SetStateAction } from "react";
import type { Affordances } from "@/lib/inbox/affordances";
import type { TaskView } from "@/lib/inbox/view";
import type { FormState } from "./form-state";

interface Props {
  task: TaskView;
  can: Affordances;
  form: FormState;
  setForm: Dispatch<SetStateAction<FormState>>;
  pending: boolean;
  onComplete: () => void;
  onDismiss: () => void;
}

export function TaskForm({ task, can, form, setForm, pending, onComplete, onDismiss }: Props) {
  const tick = (i: number, done: boolean) =>
    setForm((f) => ({ ...f, ticks: f.ticks.map((t, j) => (j === i ? done : t)) }));
  const done = form.ticks.filter(Boolean).length;
  return (
    <form
      className="answer"
      onSubmit={(e) => {
        e.preventDefault();
        onComplete();
      }}
    >
      <h2>Checklist</h2>
      {task.checklist.length === 0 ? (
        <p className="hint">No checklist: mark the task complete when it is done.</p>
      ) : (
        <>
          <ul className="checklist">
            {task.checklist.map((c, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the envelope's checklist, in its order; texts may repeat
              <li key={i}>
                <label>
                  <input
                    type="checkbox"
                    data-testid={`check-${i}`}
                    checked={form.ticks[i] === true}
                    onChange={(e) => tick(i, e.target.checked)}
                  />
                  <span>{c.text}</span>
                </label>
              </li>
            ))}
          </ul>
          <p className="hint">
            {done} of {task.checklist.length} done — the final checklist goes to the agent as ticked.
          </p>
        </>
      )}
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
        {can.complete && (
          <button type="submit" className="btn btn-primary" data-testid="complete" disabled={pending}>
            {pending ? "Sending…" : "Mark complete"}
          </button>
        )}
        {can.dismiss && (
          <button type="button" className="btn btn-danger" data-testid="dismiss" disabled={pending} onClick={onDismiss}>
            Dismiss
          </button>
        )}
      </div>
    </form>
  );
}

"use client";
/**
 * The operator's hard stop on an agent's page (§16.4.1), for owners and admins: **Stop agent**
 * asks first in a modal dialog on the page (a `<dialog>` opened with `showModal()`: focus moves into
 * it, starting on Cancel, stays there, and Escape cancels), then closes every live session and blocks
 * new ones; while the agent is stopped, **Resume** lifts the stop. The server checks everything again
 * (app/inbox/agents/actions.ts); the page re-renders with the new state.
 */
import { useActionState, useId, useRef, useState } from "react";
import type { ActionState } from "@/lib/next/action-state";
import { resumeAgentAction, stopAgentAction } from "../agents/actions";

export function AgentStopControl({ account, agent, stopped }: { account: string; agent: string; stopped: boolean }) {
  const [stopState, stopAction, stopping] = useActionState<ActionState, FormData>(stopAgentAction, null);
  const [resumeState, resumeAction, resuming] = useActionState<ActionState, FormData>(resumeAgentAction, null);
  const [last, setLast] = useState<"stop" | "resume" | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const id = useId();
  const state = last === "stop" ? stopState : last === "resume" ? resumeState : null;
  const hidden = (
    <>
      <input type="hidden" name="account" value={account} />
      <input type="hidden" name="agent" value={agent} />
    </>
  );
  return (
    <div className="agent-stop-control">
      {stopped ? (
        <form action={resumeAction} onSubmit={() => setLast("resume")} data-testid="resume-agent">
          {hidden}
          <button type="submit" className="btn btn-primary" disabled={resuming} data-testid="resume-agent-submit">
            Resume
          </button>
        </form>
      ) : (
        <>
          <button
            type="button"
            className="btn btn-danger"
            aria-haspopup="dialog"
            disabled={stopping}
            data-testid="stop-agent"
            onClick={() => {
              dialog.current?.showModal();
              cancel.current?.focus();
            }}
          >
            Stop agent
          </button>
          <dialog
            ref={dialog}
            className="confirm-dialog"
            aria-labelledby={`${id}-title`}
            aria-describedby={`${id}-text`}
            data-testid="stop-agent-dialog"
          >
            <h2 id={`${id}-title`}>
              Stop <code>{agent}</code>?
            </h2>
            <p id={`${id}-text`}>
              Every live session of this agent closes now, marked as closed by an operator, and the agent cannot
              register a new session until a person resumes it. Its messages and directives stay as they are.
            </p>
            <form
              action={stopAction}
              onSubmit={() => {
                setLast("stop");
                dialog.current?.close();
              }}
            >
              {hidden}
              <div className="dialog-actions">
                <button
                  ref={cancel}
                  type="button"
                  className="btn"
                  data-testid="stop-agent-cancel"
                  onClick={() => dialog.current?.close()}
                >
                  Cancel
                </button>
                <button type="submit" className="btn btn-danger" data-testid="stop-agent-confirm">
                  Stop agent
                </button>
              </div>
            </form>
          </dialog>
        </>
      )}
      {state && !state.ok && (
        <p role="alert" className="notice notice-warn" data-testid="agent-stop-error">
          {state.error}
        </p>
      )}
      {state?.ok && (
        <p role="status" className="notice notice-ok" data-testid="agent-stop-ok">
          {state.message}
        </p>
      )}
    </div>
  );
}

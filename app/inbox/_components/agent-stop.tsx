"use client";
/**
 * The operator's hard stop on an agent's page (§16.4.1), for owners and admins: **Stop agent**
 * asks first in a modal dialog on the page (a `<dialog>` opened with `showModal()`: focus moves into
 * it, starting on Cancel, stays there, and Escape cancels), then closes every live session and blocks
 * new ones. The dialog says what a stop leaves alone — the API keys, which still work outside
 * sessions — and offers **Stop and revoke keys**, which also revokes them in the same audited step.
 * While the agent is stopped, **Resume** lifts the stop. The server checks everything again
 * (app/inbox/agents/actions.ts); the page re-renders with the new state.
 */
import { useActionState, useId, useRef, useState } from "react";
import type { ActionState } from "@/lib/next/action-state";
import { resumeAgentAction, stopAgentAction, stopAgentRevokeKeysAction } from "../agents/actions";

export function AgentStopControl({ account, agent, stopped }: { account: string; agent: string; stopped: boolean }) {
  const [stopState, stopAction, stopping] = useActionState<ActionState, FormData>(stopAgentAction, null);
  const [revokeState, revokeAction, revoking] = useActionState<ActionState, FormData>(stopAgentRevokeKeysAction, null);
  const [resumeState, resumeAction, resuming] = useActionState<ActionState, FormData>(resumeAgentAction, null);
  const [last, setLast] = useState<"stop" | "revoke" | "resume" | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const id = useId();
  const state = last === "stop" ? stopState : last === "revoke" ? revokeState : last === "resume" ? resumeState : null;
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
            disabled={stopping || revoking}
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
            <p className="notice notice-warn" data-testid="stop-agent-keys-note">
              Stop does not revoke its API keys: outside a session the agent can still submit messages, read answers and
              drain its mailbox. <strong>Stop and revoke keys</strong> also revokes every key of the agent at once
              (audited); it is back only when an admin issues a new key and someone resumes it.
            </p>
            <form
              action={revokeAction}
              id={`${id}-revoke`}
              onSubmit={() => {
                setLast("revoke");
                dialog.current?.close();
              }}
            >
              {hidden}
            </form>
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
                <button
                  type="submit"
                  form={`${id}-revoke`}
                  className="btn btn-danger"
                  data-testid="stop-agent-revoke-keys"
                >
                  Stop and revoke keys
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

"use client";
/**
 * Writing a directive to one agent (§13), with what to expect before sending (§15.4): "listening
 * now" when the agent drained or polled within the presence window, else "will receive it on its
 * next run" — the mailbox is durable either way.
 */
import { useActionState, useEffect, useRef } from "react";
import { sendDirective, type SendState } from "../directives/actions";

/** A live session the directive may be addressed to (§13.2): only that session then receives it. */
export interface ComposeSession {
  id: string;
  label?: string;
}

interface Props {
  account: string;
  agent: string;
  /** The agent's live sessions; empty hides the picker. */
  sessions?: ComposeSession[];
  presenceState: "online" | "offline" | "unknown";
  presenceText: string;
}

export function DirectiveCompose({ account, agent, sessions = [], presenceState, presenceText }: Props) {
  const [state, action, pending] = useActionState<SendState, FormData>(sendDirective, null);
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (state?.ok) form.current?.reset();
  }, [state]);
  return (
    <form ref={form} action={action} className="directive-compose" data-testid="directive-compose">
      <h2>Send a directive</h2>
      <p className={`presence presence-${presenceState}`} data-testid="directive-presence">
        <code>{agent}</code> — {presenceText}
      </p>
      <input type="hidden" name="account" value={account} />
      <input type="hidden" name="agent" value={agent} />
      {sessions.length > 0 && (
        <label>
          To
          <select name="session" defaultValue="" data-testid="directive-session">
            <option value="">the agent — whichever run drains next</option>
            {sessions.map((s) => (
              <option key={s.id} value={s.id}>
                only session {s.id}
                {s.label ? ` (${s.label})` : ""} — bounced if it ends first
              </option>
            ))}
          </select>
        </label>
      )}
      <label>
        Title
        <input
          name="title"
          required
          maxLength={200}
          placeholder="One line the agent acts on"
          data-testid="directive-title"
        />
      </label>
      <label>
        Details (Markdown)
        <textarea name="body" rows={4} data-testid="directive-body" />
      </label>
      <div className="directive-row">
        <label>
          Priority
          <select name="priority" defaultValue="normal" data-testid="directive-priority">
            <option value="low">low</option>
            <option value="normal">normal</option>
            <option value="high">high</option>
            <option value="urgent">urgent</option>
          </select>
        </label>
        <label>
          Tags (comma-separated)
          <input name="tags" />
        </label>
        <label>
          Expires in (hours)
          <input name="expires_hours" inputMode="numeric" pattern="[0-9]*" placeholder="retention default" />
        </label>
        <label className="check">
          <input type="checkbox" name="sensitive" /> sensitive
        </label>
      </div>
      <button type="submit" className="btn btn-primary" disabled={pending} data-testid="directive-send">
        {pending ? "Sending…" : "Send directive"}
      </button>
      {state?.ok === false && (
        <p className="form-error" role="alert" data-testid="directive-error">
          {state.error}
        </p>
      )}
      {state?.ok && (
        <p className="form-ok" role="status" data-testid="directive-sent">
          Queued as <code>{state.id}</code>.
        </p>
      )}
    </form>
  );
}

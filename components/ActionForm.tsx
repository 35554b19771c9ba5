"use client";
/**
 * A server-action form for the admin screens: shows the action's message or error, and a new
 * credential exactly once (kept only in this component's state — a reload or navigation loses it
 * for good, as nothing can show it again).
 */
import { useActionState, useState, type ReactNode } from "react";
import type { ActionState } from "@/lib/next/action-state";

type Action = (prev: ActionState, form: FormData) => Promise<ActionState>;

export function ActionForm({
  action,
  hidden,
  submit,
  children,
  testId,
  danger = false,
  confirm,
  className,
}: {
  action: Action;
  /** Hidden fields (the account slug, ids): only names for the server, which checks them all. */
  hidden?: Record<string, string>;
  submit: string;
  children?: ReactNode;
  testId: string;
  danger?: boolean;
  /** A question the browser asks before a destructive submit. */
  confirm?: string;
  className?: string;
}) {
  const [state, formAction, pending] = useActionState(action, null);
  return (
    <form
      action={formAction}
      data-testid={testId}
      className={className ?? "admin-form"}
      onSubmit={(e) => {
        if (confirm && !window.confirm(confirm)) e.preventDefault();
      }}
    >
      {Object.entries(hidden ?? {}).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
      {children}
      <button
        type="submit"
        // Row-level buttons stay quiet; the page's main form gets the primary button.
        className={danger ? "btn btn-danger" : className === "inline-form" ? "btn" : "btn btn-primary"}
        disabled={pending}
        data-testid={`${testId}-submit`}
      >
        {submit}
      </button>
      {state && !state.ok && (
        <p role="alert" className="notice notice-warn" data-testid={`${testId}-error`}>
          {state.error}
        </p>
      )}
      {state?.ok && (
        <p role="status" className="notice notice-ok" data-testid={`${testId}-ok`}>
          {state.message}
        </p>
      )}
      {state?.ok && state.secret && (
        <SecretOnce value={state.secret} label={state.secretLabel ?? "Secret"} testId={`${testId}-secret`} />
      )}
    </form>
  );
}

/** A credential shown once, with a copy button. */
export function SecretOnce({ value, label, testId }: { value: string; label: string; testId: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="secret-once">
      <p>
        <strong>{label}</strong> — copy it now: it is shown this once and never again.
      </p>
      <div className="secret-row">
        <code data-testid={testId}>{value}</code>
        <button
          type="button"
          className="btn"
          data-testid={`${testId}-copy`}
          onClick={() => {
            void navigator.clipboard?.writeText(value).then(
              () => setCopied(true),
              () => setCopied(false),
            );
          }}
        >
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
    </div>
  );
}

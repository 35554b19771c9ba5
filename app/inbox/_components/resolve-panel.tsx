"use client";
/**
 * The resolve half of an item page: the form for the item's verb and mode (or the outcome once
 * terminal), the item's keyboard shortcuts, and the "already answered" notice after a lost race —
 * kept in this component's state, so it survives the refresh that then shows the real outcome. On
 * an ask a quorum rule routed (docs/policies.md "Quorum"): its approvals so far, "1 of 2 — your
 * approval is recorded" after a vote that does not complete it (the ask stays open, and answering
 * again changes the vote), and the person's own "Withdraw my approval" while it is open.
 */
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useState, useTransition } from "react";
import { approvalRecordedText } from "@/lib/approvals/pending";
import type { HumanAction } from "@/lib/inbox/answer";
import { prefillToRaw } from "@/lib/inbox/form-values";
import type { ItemView, ResolutionView } from "@/lib/inbox/view";
import { isPlain, isTyping } from "@/components/keys";
import { ITEM_SHORTCUTS, ShortcutsOverlay } from "@/components/ShortcutsOverlay";
import { resolveItem, withdrawApproval } from "../actions";
import { ApprovalsLine } from "./approvals";
import { AskForm, FREE_FORM_FIELD_ID } from "./ask-form";
import type { FormState } from "./form-state";
import { Outcome } from "./outcome";
import { TaskForm } from "./task-form";

function initialState(item: ItemView): FormState {
  const ask = item.ask;
  const fallback = ask?.defaultOnExpire ?? null;
  return {
    comment: "",
    // Prefilled from default_on_expire when present (§5.2, docs/decisions/inbox-and-admin.md).
    option:
      ask && ask.mode !== "input" && typeof fallback === "string" && ask.options.some((o) => o.value === fallback)
        ? fallback
        : null,
    freeForm: false,
    freeText: "",
    input:
      ask?.mode === "input"
        ? prefillToRaw(ask.fields, fallback !== null && typeof fallback === "object" ? fallback : null)
        : {},
    ticks: item.task?.checklist.map((c) => c.done) ?? [],
  };
}

/** Focuses the first answer field (the free-form text when chosen), or else the comment (`e`, and arriving with #respond). */
function focusFirstField(): void {
  const el = document.querySelector<HTMLElement>(
    '[data-testid^="field-"]:not([disabled]), [data-testid="free-form-text"], [data-testid="comment"]',
  );
  el?.focus();
}

export const BLANK_FREE_FORM = "Type your answer first — or choose one of the options. A blank answer is not sent.";

export function ResolvePanel({ item }: { item: ItemView }) {
  const router = useRouter();
  const [form, setForm] = useState<FormState>(() => initialState(item));
  const [conflict, setConflict] = useState<(ResolutionView & { status: string }) | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [recorded, setRecorded] = useState<string | null>(null);
  const [freeFormProblem, setFreeFormProblem] = useState<string | null>(null);
  const [help, setHelp] = useState(false);
  const [pending, startTransition] = useTransition();
  const open = item.resolution === null && item.status === "open";

  const submit = useCallback(
    (action: HumanAction) => {
      startTransition(async () => {
        const res = await resolveItem(item.id, action);
        setRecorded(res.ok && res.approvals ? approvalRecordedText(res.approvals) : null);
        if (res.ok) setError(null);
        else if (res.conflict) setConflict(res.conflict);
        else setError(res.error);
        router.refresh();
      });
    },
    [item.id, router],
  );

  const comment = form.comment.trim() || undefined;
  const answer = useCallback(
    (value?: string) => {
      if (!item.ask || !item.can.answer) return;
      if (item.ask.mode === "input") return submit({ kind: "answer", input: form.input, comment });
      if (value === undefined && form.freeForm && item.ask.freeForm) {
        // §5.2 free-form answer: sent verbatim (the verb stamps `edited`, §6); blank is never sent.
        if (form.freeText.trim() === "") {
          setFreeFormProblem(BLANK_FREE_FORM);
          return document.getElementById(FREE_FORM_FIELD_ID)?.focus();
        }
        setFreeFormProblem(null);
        return submit({ kind: "answer", value: form.freeText, comment });
      }
      if (value ?? form.option) submit({ kind: "answer", value: value ?? form.option ?? "", comment });
    },
    [item, form, comment, submit],
  );
  const decline = useCallback(() => {
    if (item.can.decline || item.can.dismiss) submit({ kind: "decline", comment });
  }, [item, comment, submit]);
  const withdraw = useCallback(() => {
    startTransition(async () => {
      const res = await withdrawApproval(item.id);
      setRecorded(res.ok ? "Your approval is withdrawn." : null);
      setError(res.ok ? null : res.error);
      router.refresh();
    });
  }, [item.id, router]);
  const mine = item.approvals?.votes.find((v) => v.handle === item.viewer.handle) ?? null;
  const complete = useCallback(() => {
    if (item.can.complete) submit({ kind: "complete", comment, checklist: form.ticks });
  }, [item, comment, form.ticks, submit]);

  useEffect(() => {
    if (open && window.location.hash === "#respond") focusFirstField();
  }, [open]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!isPlain(e)) return;
      if (e.key === "Escape") {
        if (help) setHelp(false);
        else if (isTyping(e.target)) (e.target as HTMLElement).blur();
        else router.push("/inbox");
        return;
      }
      if (isTyping(e.target)) return;
      if (e.key === "?") return setHelp((h) => !h);
      if (help) return;
      if (e.key === "u") return router.push("/inbox");
      if (!open || pending) return;
      if (e.key === "e") {
        e.preventDefault();
        return focusFirstField();
      }
      if (e.key === "d") return decline();
      if (e.key !== "a") return;
      e.preventDefault();
      if (item.task) return complete();
      if (!item.ask) return;
      if (item.ask.mode === "input") return focusFirstField();
      // confirm → approve (its first option); select → the focused option, else the first; the
      // focused free-form choice → the typed answer (blank: said, not sent).
      const focused = document.activeElement instanceof HTMLElement ? document.activeElement.dataset : undefined;
      if (focused?.freeForm === "true") return answer();
      return answer(focused?.option ?? item.ask.options[0]?.value);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [help, open, pending, item, answer, decline, complete, router]);

  return (
    <section className="resolve" id="respond" aria-busy={pending}>
      {conflict && (
        <div className="panel conflict" role="alert" data-testid="conflict">
          <strong>
            Already {conflict.status} by {conflict.actor} at {new Date(conflict.resolvedAt).toLocaleString()}.
          </strong>{" "}
          Your answer was not recorded; the outcome below is the one that counts.
        </div>
      )}
      {open && item.routing && (
        <p className="readonly" data-testid="routing">
          Asked by the account&apos;s approval policy ({item.routing.rules.join(", ")}): {item.routing.asked.join(", ")}
          .
        </p>
      )}
      {item.approvals && (open || item.approvals.votes.length > 0) && (
        <p className="readonly approvals-state">
          <ApprovalsLine approvals={item.approvals} />
          {open && mine && (
            <>
              {" "}
              <button
                type="button"
                className="btn btn-quiet"
                data-testid="withdraw-approval"
                disabled={pending}
                onClick={withdraw}
              >
                Withdraw my approval
              </button>
            </>
          )}
        </p>
      )}
      {recorded && open && (
        <p className="notice notice-ok" role="status" data-testid="approval-recorded">
          {recorded}
        </p>
      )}
      {item.resolution ? (
        <Outcome item={item} resolution={item.resolution} />
      ) : item.type === "notify" ? (
        <p className="readonly">A notification: nothing to answer.</p>
      ) : item.can.refusal !== null ? (
        <p className="readonly" data-testid="cannot-resolve">
          You can read this item but not resolve it: {item.can.refusal}.
        </p>
      ) : item.ask ? (
        <AskForm
          ask={item.ask}
          can={item.can}
          form={form}
          setForm={(next) => {
            setFreeFormProblem(null);
            setForm(next);
          }}
          pending={pending}
          freeFormProblem={freeFormProblem}
          onAnswer={answer}
          onDecline={decline}
        />
      ) : item.task ? (
        <TaskForm
          task={item.task}
          can={item.can}
          form={form}
          setForm={setForm}
          pending={pending}
          onComplete={complete}
          onDismiss={decline}
        />
      ) : null}
      {error && (
        <p className="form-error" role="alert" data-testid="form-error">
          {error}
        </p>
      )}
      <p className="hint">
        Keys: <kbd>a</kbd> answer · <kbd>d</kbd> decline · <kbd>e</kbd> edit · <kbd>u</kbd> back ·{" "}
        <button type="button" className="linklike" onClick={() => setHelp(true)}>
          <kbd>?</kbd> all shortcuts
        </button>
      </p>
      {help && <ShortcutsOverlay shortcuts={ITEM_SHORTCUTS} onClose={() => setHelp(false)} />}
    </section>
  );
}

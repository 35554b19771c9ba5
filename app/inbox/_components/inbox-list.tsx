"use client";
/**
 * The inbox list with keyboard triage. The cursor and the selection are kept by message id, so a
 * live refresh that reorders or adds rows keeps them where they were. Quick actions and bulk actions
 * call the same server actions as the item page, which call the same lib/ verb as the API.
 */
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useState, useTransition } from "react";
import { approvalRecordedText } from "@/lib/approvals/pending";
import type { BulkReport } from "@/lib/inbox/answer";
import type { InboxRow } from "@/lib/inbox/list";
import type { WaitingByRow } from "@/lib/inbox/response-track";
import { Age, Countdown } from "@/components/Clock";
import { isPlain, isTyping } from "@/components/keys";
import { LIST_SHORTCUTS, ShortcutsOverlay } from "@/components/ShortcutsOverlay";
import { resolveItem, resolveMany } from "../actions";
import { ApprovalsLine } from "./approvals";
import { BulkReportPanel } from "./bulk-report";

type Notice = { tone: "ok" | "warn"; text: string } | null;

export function InboxList({
  rows,
  multiAccount,
  waiting = {},
}: {
  rows: InboxRow[];
  multiAccount: boolean;
  waiting?: WaitingByRow;
}) {
  const router = useRouter();
  const [cursorId, setCursorId] = useState<string | null>(rows[0]?.id ?? null);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [help, setHelp] = useState(false);
  const [notice, setNotice] = useState<Notice>(null);
  const [report, setReport] = useState<BulkReport | null>(null);
  const [pending, startTransition] = useTransition();

  // Keep the cursor on a row that exists (the first, if its row went away).
  const cursorIndex = Math.max(
    0,
    rows.findIndex((r) => r.id === cursorId),
  );
  const cursor = rows[cursorIndex] ?? null;
  useEffect(() => {
    if (cursor && cursor.id !== cursorId) setCursorId(cursor.id);
  }, [cursor, cursorId]);

  const move = useCallback(
    (delta: number) => {
      const next = rows[Math.min(rows.length - 1, Math.max(0, cursorIndex + delta))];
      if (!next) return;
      setCursorId(next.id);
      document.querySelector(`[data-testid="inbox-row"][data-id="${next.id}"]`)?.scrollIntoView({ block: "nearest" });
    },
    [rows, cursorIndex],
  );

  const toggle = useCallback((id: string) => {
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }, []);

  const bulk = useCallback(
    (kind: "decline" | "complete", ids: string[]) => {
      if (ids.length === 0) return;
      startTransition(async () => {
        const r = await resolveMany(ids, kind);
        setReport(r.ok ? r.report : null);
        setNotice(r.ok ? null : { tone: "warn", text: r.error });
        setSelected(new Set());
        router.refresh();
      });
    },
    [router],
  );

  const quick = useCallback(
    (row: InboxRow, kind: "answer" | "decline" | "complete") => {
      const allowed = kind === "answer" ? row.canAnswer : kind === "decline" ? row.canDecline : row.canComplete;
      if (!allowed) {
        setNotice({ tone: "warn", text: `${row.title}: ${row.refusal ?? `cannot ${kind} this one from the list`}` });
        return;
      }
      // An input ask needs its form; a task's complete wants its checklist.
      if (kind === "answer" && (row.mode === "input" || row.quickValue === null)) {
        router.push(`/inbox/${row.id}#respond`);
        return;
      }
      startTransition(async () => {
        const res = await resolveItem(
          row.id,
          kind === "answer" ? { kind: "answer", value: row.quickValue ?? "" } : { kind },
        );
        setReport(null);
        setNotice(
          res.ok
            ? {
                tone: "ok",
                // A vote on a quorum ask that does not complete it: the item stays open (docs/policies.md "Quorum").
                text: `${row.title}: ${res.approvals ? approvalRecordedText(res.approvals) : res.status}`,
              }
            : {
                tone: "warn",
                text: res.conflict
                  ? `${row.title}: already ${res.conflict.status} by ${res.conflict.actor}`
                  : `${row.title}: ${res.error}`,
              },
        );
        router.refresh();
      });
    },
    [router],
  );

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!isPlain(e)) return;
      if (e.key === "Escape") {
        if (help) setHelp(false);
        else if (selected.size > 0) setSelected(new Set());
        return;
      }
      if (isTyping(e.target) || help) {
        if (help && e.key === "?") setHelp(false);
        return;
      }
      const onControl = e.target instanceof HTMLElement && e.target.closest("a, button, select") !== null;
      const key = e.key;
      const handled =
        ["j", "k", "ArrowDown", "ArrowUp", "o", "x", "a", "d", "c", "e", "/", "?"].includes(key) ||
        (key === "Enter" && !onControl);
      if (!handled) return;
      e.preventDefault();
      if (key === "?") return setHelp(true);
      if (key === "/") return document.querySelector<HTMLInputElement>('[data-testid="search"]')?.focus();
      if (key === "j" || key === "ArrowDown") return move(1);
      if (key === "k" || key === "ArrowUp") return move(-1);
      if (!cursor || pending) return;
      if (key === "Enter" || key === "o") return router.push(`/inbox/${cursor.id}`);
      if (key === "e") return router.push(`/inbox/${cursor.id}#respond`);
      if (key === "x") return toggle(cursor.id);
      if (key === "a") return quick(cursor, "answer");
      if (key === "d") return selected.size > 0 ? bulk("decline", [...selected]) : quick(cursor, "decline");
      if (key === "c") return selected.size > 0 ? bulk("complete", [...selected]) : quick(cursor, "complete");
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [cursor, help, selected, pending, move, toggle, quick, bulk, router]);

  const selectedIds = [...selected];

  return (
    <>
      <div className="toolbar">
        <span className="toolbar-count">
          {selected.size > 0 ? `${selected.size} selected` : "Select with x or the boxes"}
        </span>
        <button
          type="button"
          className="btn"
          data-testid="bulk-decline"
          disabled={selected.size === 0 || pending}
          onClick={() => bulk("decline", selectedIds)}
        >
          Decline / dismiss
        </button>
        <button
          type="button"
          className="btn"
          data-testid="bulk-complete"
          disabled={selected.size === 0 || pending}
          onClick={() => bulk("complete", selectedIds)}
        >
          Complete
        </button>
        {selected.size > 0 && (
          <button type="button" className="btn btn-quiet" onClick={() => setSelected(new Set())}>
            Clear
          </button>
        )}
        <button
          type="button"
          className="btn btn-quiet toolbar-help"
          onClick={() => setHelp(true)}
          aria-label="Keyboard shortcuts"
        >
          ? Shortcuts
        </button>
      </div>
      {pending && (
        <p className="notice" role="status">
          Working…
        </p>
      )}
      {notice && (
        <p className={`notice notice-${notice.tone}`} role="status">
          {notice.text}
        </p>
      )}
      {report && <BulkReportPanel report={report} onClose={() => setReport(null)} />}
      {rows.length === 0 ? (
        <p className="empty">Nothing here. New asks and tasks appear as soon as an agent sends them.</p>
      ) : (
        <ul className="rows" aria-label="Inbox items">
          {rows.map((r) => (
            <Row
              key={r.id}
              row={r}
              cursor={r.id === cursor?.id}
              selected={selected.has(r.id)}
              multiAccount={multiAccount}
              waiting={waiting[r.id]}
              onToggle={toggle}
              onFocus={setCursorId}
            />
          ))}
        </ul>
      )}
      {help && <ShortcutsOverlay shortcuts={LIST_SHORTCUTS} onClose={() => setHelp(false)} />}
    </>
  );
}

const VERB_LABEL: Record<string, string> = { ask: "Ask", task: "Task", notify: "Note" };

function Row(props: {
  row: InboxRow;
  cursor: boolean;
  selected: boolean;
  multiAccount: boolean;
  waiting?: WaitingByRow[string];
  onToggle: (id: string) => void;
  onFocus: (id: string) => void;
}) {
  const { row: r, cursor, selected } = props;
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: a click moves the list cursor; the keyboard moves it with j/k (the list's key handler)
    <li
      className={`row${cursor ? " row-cursor" : ""}${selected ? " row-selected" : ""}${r.status === "open" ? "" : " row-closed"}`}
      data-testid="inbox-row"
      data-id={r.id}
      data-cursor={cursor ? "true" : undefined}
      data-selected={selected ? "true" : undefined}
      onClick={() => props.onFocus(r.id)}
    >
      <input
        type="checkbox"
        className="row-check"
        aria-label={`Select ${r.title}`}
        checked={selected}
        onChange={() => props.onToggle(r.id)}
      />
      <span className={`prio prio-${r.priority}`} title={`priority ${r.priority}`}>
        {r.priority}
      </span>
      <div className="row-main">
        <Link prefetch={false} href={`/inbox/${r.id}`} className="row-title">
          {r.title}
        </Link>
        <div className="row-meta">
          <span className={`verb verb-${r.type}`}>
            {r.mode ? `${VERB_LABEL[r.type]} · ${r.mode}` : VERB_LABEL[r.type]}
          </span>
          <span className={`status status-${r.status}`}>{r.status}</span>
          <span className="agent">{r.agentId}</span>
          {props.waiting && (
            <span className={`presence presence-${props.waiting.state}`} data-testid="row-waiting">
              {props.waiting.text}
            </span>
          )}
          {r.project && <span className="project">{r.project}</span>}
          {props.multiAccount && <span className="account">{r.account}</span>}
          {r.tags.slice(0, 4).map((t) => (
            <span key={t} className="tag">
              #{t}
            </span>
          ))}
          <Age iso={r.createdAt} />
          {r.status === "open" && r.expiresAt && <Countdown expiresAt={r.expiresAt} />}
        </div>
        {r.approvals && (
          <div className="row-approvals">
            <ApprovalsLine approvals={r.approvals} testId="row-approvals" />
          </div>
        )}
      </div>
    </li>
  );
}

"use client";
/**
 * The inbox list with keyboard triage. The cursor and the selection are kept by message id, so a
 * live refresh that reorders or adds rows keeps them where they were. Quick actions and bulk actions
 * call the same server actions as the item page, which call the same lib/ verb as the API. Similar
 * asks fold into one expandable group row (lib/inbox/similar.ts, docs/inbox.md "Similar asks"): the
 * cursor stops on its header (`group:<first member's id>`) and, expanded, on its members.
 */
import Link from "next/link";
import { useRouter } from "next/navigation";
import { type ReactNode, useCallback, useEffect, useState, useTransition } from "react";
import { approvalRecordedText } from "@/lib/approvals/pending";
import type { BulkReport, GroupReport } from "@/lib/inbox/answer";
import type { InboxRow } from "@/lib/inbox/list";
import { groupSimilar, type ListOption, type SimilarGroup, sharedOptions } from "@/lib/inbox/similar";
import type { WaitingByRow } from "@/lib/inbox/response-track";
import { Age, Countdown } from "@/components/Clock";
import { isPlain, isTyping } from "@/components/keys";
import { LIST_SHORTCUTS, ShortcutsOverlay } from "@/components/ShortcutsOverlay";
import { answerSimilar, resolveItem, resolveMany } from "../actions";
import { ApprovalsLine } from "./approvals";
import { BulkReportPanel, GroupReportPanel } from "./bulk-report";

type Notice = { tone: "ok" | "warn"; text: string } | null;

/** The cursor's id for a group's header row. */
const groupNavId = (g: SimilarGroup<InboxRow>) => `group:${g.rows[0]?.id ?? ""}`;

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
  const [groupReport, setGroupReport] = useState<GroupReport | null>(null);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const [pending, startTransition] = useTransition();

  const entries = groupSimilar(rows);
  const groups = new Map(entries.flatMap((e) => (e.kind === "group" ? [[groupNavId(e), e] as const] : [])));
  // The stops of j/k: every lone row, each group's header, and an expanded group's members.
  const nav = entries.flatMap((e) =>
    e.kind === "row" ? [e.row.id] : [groupNavId(e), ...(expanded.has(groupNavId(e)) ? e.rows.map((r) => r.id) : [])],
  );

  // Keep the cursor on a stop that exists (the first, if its row went away).
  const cursorIndex = Math.max(
    0,
    nav.findIndex((id) => id === cursorId),
  );
  const cursorNav = nav[cursorIndex] ?? null;
  const cursor = rows.find((r) => r.id === cursorNav) ?? null;
  const cursorGroup = cursorNav === null ? undefined : groups.get(cursorNav);
  useEffect(() => {
    if (cursorNav !== null && cursorNav !== cursorId) setCursorId(cursorNav);
  }, [cursorNav, cursorId]);

  const move = useCallback(
    (delta: number) => {
      const next = nav[Math.min(nav.length - 1, Math.max(0, cursorIndex + delta))];
      if (!next) return;
      setCursorId(next);
      document.querySelector(`[data-nav="${next}"]`)?.scrollIntoView({ block: "nearest" });
    },
    [nav, cursorIndex],
  );

  const toggleExpanded = useCallback((navId: string) => {
    setExpanded((prev) => {
      const next = new Set(prev);
      if (next.has(navId)) next.delete(navId);
      else next.add(navId);
      return next;
    });
  }, []);

  /** Selects every member of a group, or unselects them all when every one is selected. */
  const toggleMany = useCallback((ids: string[]) => {
    setSelected((prev) => {
      const next = new Set(prev);
      const all = ids.every((id) => next.has(id));
      for (const id of ids) {
        if (all) next.delete(id);
        else next.add(id);
      }
      return next;
    });
  }, []);

  /** One decision for several similar asks: each is answered on its own, each reported. */
  const answerMany = useCallback(
    (ids: string[], value: string) => {
      if (ids.length === 0) return;
      startTransition(async () => {
        const r = await answerSimilar(ids, value);
        setReport(null);
        setGroupReport(r.ok ? r.report : null);
        setNotice(r.ok ? null : { tone: "warn", text: r.error });
        setSelected(new Set());
        router.refresh();
      });
    },
    [router],
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
        setGroupReport(null);
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
        setGroupReport(null);
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

  const selectedIds = [...selected];
  // "Answer selected": only when every selected ask shares mode and options (lib/inbox/similar.ts).
  const shared = sharedOptions(rows.filter((r) => selected.has(r.id)));

  // Re-bound on every render: it reads the cursor, the selection and the groups of this render.
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
        /^[1-9]$/.test(key) ||
        (key === "Enter" && !onControl);
      if (!handled) return;
      e.preventDefault();
      if (key === "?") return setHelp(true);
      if (key === "/") return document.querySelector<HTMLInputElement>('[data-testid="search"]')?.focus();
      if (key === "j" || key === "ArrowDown") return move(1);
      if (key === "k" || key === "ArrowUp") return move(-1);
      if (pending) return;
      // 1–9: the selection's shared option n, else the group under the cursor's option n.
      if (/^[1-9]$/.test(key)) {
        const n = Number(key) - 1;
        if (selected.size > 0) {
          const option = shared?.[n];
          if (option) answerMany(selectedIds, option.value);
          else setNotice({ tone: "warn", text: answerSelectedRefusal(shared, n) });
        } else if (cursorGroup) {
          const option = cursorGroup.options[n];
          if (option)
            answerMany(
              cursorGroup.rows.map((r) => r.id),
              option.value,
            );
        }
        return;
      }
      if (cursorGroup) {
        const ids = cursorGroup.rows.map((r) => r.id);
        if (key === "Enter" || key === "o") return toggleExpanded(groupNavId(cursorGroup));
        if (key === "x") return toggleMany(ids);
        if (key === "d") return bulk("decline", selected.size > 0 ? [...selected] : ids);
        if (key === "a")
          return setNotice({
            tone: "warn",
            text: "Answer a group with its buttons or 1–9; expand it (Enter) to answer one of its asks.",
          });
        return;
      }
      if (!cursor) return;
      if (key === "Enter" || key === "o") return router.push(`/inbox/${cursor.id}`);
      if (key === "e") return router.push(`/inbox/${cursor.id}#respond`);
      if (key === "x") return toggle(cursor.id);
      if (key === "a") return quick(cursor, "answer");
      if (key === "d") return selected.size > 0 ? bulk("decline", [...selected]) : quick(cursor, "decline");
      if (key === "c") return selected.size > 0 ? bulk("complete", [...selected]) : quick(cursor, "complete");
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });

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
        {shared ? (
          shared.map((o, i) => (
            <button
              key={o.value}
              type="button"
              className="btn"
              data-testid="bulk-answer"
              data-value={o.value}
              disabled={pending}
              title={`Answer each selected ask with ${o.label} (${i + 1})`}
              onClick={() => answerMany(selectedIds, o.value)}
            >
              Answer selected: {o.label}
            </button>
          ))
        ) : (
          <button
            type="button"
            className="btn"
            data-testid="bulk-answer"
            disabled
            title={selected.size === 0 ? "Select asks first" : answerSelectedRefusal(null, 0)}
          >
            Answer selected
          </button>
        )}
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
      {groupReport && <GroupReportPanel report={groupReport} onClose={() => setGroupReport(null)} />}
      {rows.length === 0 ? (
        <p className="empty">Nothing here. New asks and tasks appear as soon as an agent sends them.</p>
      ) : (
        <ul className="rows" aria-label="Inbox items">
          {entries.map((e) => {
            const row = (r: InboxRow) => (
              <Row
                key={r.id}
                row={r}
                cursor={r.id === cursorNav}
                selected={selected.has(r.id)}
                multiAccount={multiAccount}
                waiting={waiting[r.id]}
                onToggle={toggle}
                onFocus={setCursorId}
              />
            );
            if (e.kind === "row") return row(e.row);
            const navId = groupNavId(e);
            return (
              <GroupRow
                key={navId}
                navId={navId}
                group={e}
                cursor={navId === cursorNav}
                expanded={expanded.has(navId)}
                selected={e.rows.filter((r) => selected.has(r.id)).length}
                multiAccount={multiAccount}
                pending={pending}
                onExpand={() => toggleExpanded(navId)}
                onSelect={() => toggleMany(e.rows.map((r) => r.id))}
                onAnswer={(value) =>
                  answerMany(
                    e.rows.map((r) => r.id),
                    value,
                  )
                }
                onFocus={setCursorId}
              >
                {e.rows.map(row)}
              </GroupRow>
            );
          })}
        </ul>
      )}
      {help && <ShortcutsOverlay shortcuts={LIST_SHORTCUTS} onClose={() => setHelp(false)} />}
    </>
  );
}

const VERB_LABEL: Record<string, string> = { ask: "Ask", task: "Task", notify: "Note" };

/** Why "answer selected" cannot answer the selection with option n (1-based in the text). */
function answerSelectedRefusal(shared: ListOption[] | null, n: number): string {
  return shared === null
    ? "Answer selected needs open confirm or select asks that all have the same mode and options."
    : `The selected asks have no option ${n + 1}.`;
}

/**
 * A group of similar asks: its shape and count ("Deploy build #… ×3"), one button per shared
 * option answering every member (shown when this person may answer at least one of them), and its
 * members as normal rows once expanded.
 */
function GroupRow(props: {
  navId: string;
  group: SimilarGroup<InboxRow>;
  cursor: boolean;
  expanded: boolean;
  selected: number;
  multiAccount: boolean;
  pending: boolean;
  onExpand: () => void;
  onSelect: () => void;
  onAnswer: (value: string) => void;
  onFocus: (id: string) => void;
  children: ReactNode;
}) {
  const { group: g, cursor, expanded } = props;
  const count = g.rows.length;
  const all = props.selected === count;
  const answerable = g.rows.some((r) => r.canAnswer);
  const refusal = g.rows.find((r) => r.refusal)?.refusal ?? null;
  const membersId = `${props.navId}-members`;
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: a click on the header moves the list cursor there; the keyboard moves it with j/k (the list's key handler)
    <li
      className="row-group"
      data-testid="similar-group"
      data-count={count}
      data-shape={g.shape}
      onClick={(e) => {
        // A member's click moves the cursor to that member (its own row's handler), not to the header.
        if (e.target instanceof Element && e.target.closest("[data-nav]")?.getAttribute("data-nav") === props.navId)
          props.onFocus(props.navId);
      }}
    >
      <div
        className={`row row-group-head${cursor ? " row-cursor" : ""}${all ? " row-selected" : ""}`}
        data-nav={props.navId}
        data-cursor={cursor ? "true" : undefined}
      >
        <input
          type="checkbox"
          className="row-check"
          aria-label={`Select all ${count}: ${g.shape}`}
          checked={all}
          ref={(el) => {
            if (el) el.indeterminate = props.selected > 0 && !all;
          }}
          onChange={props.onSelect}
        />
        <span className="group-count" title={`${count} similar asks`}>
          ×{count}
        </span>
        <div className="row-main">
          <button
            type="button"
            className="row-title group-toggle"
            data-testid="group-toggle"
            aria-expanded={expanded}
            aria-controls={membersId}
            onClick={props.onExpand}
          >
            <span aria-hidden="true">{expanded ? "▾" : "▸"}</span> {g.shape} ×{count}
          </button>
          <div className="row-meta">
            <span className="verb verb-ask">{`Ask · ${g.mode}`}</span>
            <span className="agent">{g.agentId}</span>
            {props.multiAccount && <span className="account">{g.account}</span>}
            <span>similar asks, answered together</span>
          </div>
          {answerable ? (
            <div className="group-answers">
              {g.options.map((o, i) => (
                <button
                  key={o.value}
                  type="button"
                  className="btn"
                  data-testid="group-answer"
                  data-value={o.value}
                  disabled={props.pending}
                  title={`Answer each of the ${count} asks with ${o.label} (${i + 1})`}
                  onClick={() => props.onAnswer(o.value)}
                >
                  {o.label} ×{count}
                </button>
              ))}
            </div>
          ) : (
            refusal && <div className="row-meta">{refusal}</div>
          )}
        </div>
      </div>
      {expanded && (
        <ul className="rows rows-members" id={membersId} aria-label={`${g.shape}: ${count} asks`}>
          {props.children}
        </ul>
      )}
    </li>
  );
}

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
      data-nav={r.id}
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

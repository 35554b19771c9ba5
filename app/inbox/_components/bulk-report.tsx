"use client";
import Link from "next/link";
import { approvalRecordedText } from "@/lib/approvals/pending";
import type { BulkReport, GroupReport, GroupResult } from "@/lib/inbox/answer";

/** What a bulk action did, and what it skipped and why. */
export function BulkReportPanel({ report, onClose }: { report: BulkReport; onClose: () => void }) {
  return (
    <section className="panel bulk-report" data-testid="bulk-report" aria-live="polite">
      <header className="panel-head">
        <strong>
          {report.done.length} resolved, {report.skipped.length} skipped
        </strong>
        <button type="button" className="btn btn-quiet" onClick={onClose}>
          Dismiss
        </button>
      </header>
      {report.done.length > 0 && (
        <ul className="report-list">
          {report.done.map((d) => (
            <li key={d.id}>
              <span className={`status status-${d.status}`}>{d.status}</span>{" "}
              <Link prefetch={false} href={`/inbox/${d.id}`}>
                {d.title}
              </Link>
            </li>
          ))}
        </ul>
      )}
      {report.skipped.length > 0 && (
        <ul className="report-list report-skipped">
          {report.skipped.map((s) => (
            <li key={s.id}>
              <span className="status status-skipped">skipped</span>{" "}
              {s.title ? (
                <Link prefetch={false} href={`/inbox/${s.id}`}>
                  {s.title}
                </Link>
              ) : (
                <code>{s.id}</code>
              )}{" "}
              — {s.reason}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function resultText(r: GroupResult): string {
  switch (r.outcome) {
    case "answered":
      return r.status;
    case "vote recorded":
      return approvalRecordedText(r.approvals);
    case "refused":
      return r.reason;
    case "already settled":
      return r.actor ? `already ${r.status} by ${r.actor}` : `already ${r.status}`;
  }
}

/** What one decision on similar asks did to each (docs/inbox.md "Similar asks"). */
export function GroupReportPanel({ report, onClose }: { report: GroupReport; onClose: () => void }) {
  const count = (outcome: GroupResult["outcome"]) => report.results.filter((r) => r.outcome === outcome).length;
  const summary = [
    `${count("answered")} answered`,
    count("vote recorded") > 0 && `${count("vote recorded")} votes recorded`,
    count("refused") > 0 && `${count("refused")} refused`,
    count("already settled") > 0 && `${count("already settled")} already settled`,
  ].filter(Boolean);
  return (
    <section className="panel bulk-report" data-testid="group-report" aria-live="polite">
      <header className="panel-head">
        <strong>
          “{report.value}”: {summary.join(", ")}
        </strong>
        <button type="button" className="btn btn-quiet" onClick={onClose}>
          Dismiss
        </button>
      </header>
      <ul className="report-list">
        {report.results.map((r) => (
          <li key={r.id} data-testid="group-result" data-id={r.id} data-outcome={r.outcome}>
            <span
              className={`status status-${r.outcome === "answered" ? "answered" : r.outcome === "vote recorded" ? "open" : "skipped"}`}
            >
              {r.outcome}
            </span>{" "}
            {r.title ? (
              <Link prefetch={false} href={`/inbox/${r.id}`}>
                {r.title}
              </Link>
            ) : (
              <code>{r.id}</code>
            )}
            {r.outcome !== "answered" && <> — {resultText(r)}</>}
          </li>
        ))}
      </ul>
    </section>
  );
}

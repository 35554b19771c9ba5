"use client";
import Link from "next/link";
import type { BulkReport } from "@/lib/inbox/answer";

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

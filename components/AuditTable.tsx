/**
 * One audit trail as a table, newest first: an account's log (/admin/<account>/audit) or a person's
 * own stream (/settings/activity). Time, who acted, the event kind, and its object — the
 * message it concerns (linked) and the detail's ids and names (`AuditDetail`).
 */
import Link from "next/link";
import { AuditDetail } from "@/components/AuditDetail";
import { LocalTime } from "@/components/Clock";
import type { AuditEntry } from "@/lib/audit/log";

export function AuditTable({
  entries,
  testId,
  actorLabel = (actor) => <code>{actor}</code>,
  headings = { actor: "Actor", object: "Object" },
}: {
  entries: AuditEntry[];
  /** `<testId>-table` and `<testId>-row`. */
  testId: string;
  actorLabel?: (actor: string) => React.ReactNode;
  headings?: { actor: string; object: string };
}) {
  return (
    <table className="admin-table audit-table" data-testid={`${testId}-table`}>
      <thead>
        <tr>
          <th>Time</th>
          <th>{headings.actor}</th>
          <th>Kind</th>
          <th>{headings.object}</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((e) => (
          <tr key={e.id} data-testid={`${testId}-row`} data-event={e.event} data-actor={e.actor}>
            <td>
              <LocalTime iso={e.at} />
            </td>
            <td>{actorLabel(e.actor)}</td>
            <td>
              <code>{e.event}</code>
            </td>
            <td>
              {e.message_id && (
                <>
                  <Link prefetch={false} href={`/inbox/${encodeURIComponent(e.message_id)}`}>
                    <code>{e.message_id}</code>
                  </Link>{" "}
                </>
              )}
              <AuditDetail detail={e.detail} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

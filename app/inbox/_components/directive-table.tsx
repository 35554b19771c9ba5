/**
 * Sent directives and their §14.2 tracks: queued → delivered → acknowledged (with the agent's note,
 * untrusted text through the one sanitizing renderer), or expired (never delivered) / bounced.
 */
import Link from "next/link";
import { LocalTime } from "@/components/Clock";
import { MarkdownView } from "@/components/Markdown";
import type { DirectiveRow } from "@/lib/inbox/directives";

export function agentHref(account: string, to: string): string {
  const id = to.slice("agent:".length);
  return `/inbox/agents/${encodeURIComponent(account)}/${id.split("/").map(encodeURIComponent).join("/")}`;
}

export function DirectiveTable({ rows, showAgent = true }: { rows: DirectiveRow[]; showAgent?: boolean }) {
  if (rows.length === 0) return <p className="empty">No directives sent yet.</p>;
  return (
    <table className="directives" data-testid="directive-table">
      <thead>
        <tr>
          <th>Sent</th>
          {showAgent && <th>To</th>}
          <th>Directive</th>
          <th>From</th>
          <th>Track</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((d) => (
          <tr key={d.id} data-testid="directive-row" data-directive-id={d.id}>
            <td>
              <LocalTime iso={d.created_at} />
            </td>
            {showAgent && (
              <td>
                <Link prefetch={false} href={agentHref(d.account, d.to)}>
                  <code>{d.to.slice("agent:".length)}</code>
                </Link>
                <span className="account"> · {d.account}</span>
              </td>
            )}
            <td>
              <span className={`prio prio-${d.priority ?? "normal"}`}>{d.priority ?? "normal"}</span> {d.title}
            </td>
            <td>{d.from}</td>
            <td className="track">
              <span className={`status status-${d.status}`} data-testid="directive-status">
                {d.status}
              </span>
              {d.delivery.delivered_at && (
                <span className="when">
                  {" "}
                  delivered <LocalTime iso={d.delivery.delivered_at} />
                </span>
              )}
              {d.delivery.acknowledged_at && (
                <span className="when">
                  {" "}
                  · acknowledged <LocalTime iso={d.delivery.acknowledged_at} />
                </span>
              )}
              {d.status === "expired" && <span className="when"> · never delivered</span>}
              {d.status === "bounced" && <span className="when"> · drained but never acknowledged</span>}
              {d.delivery.note && (
                <div className="ack-note" data-testid="directive-note">
                  <MarkdownView>{d.delivery.note}</MarkdownView>
                </div>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

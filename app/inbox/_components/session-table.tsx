/**
 * An agent's §16 sessions: live ones (`active`, with their lease's countdown) and, for the terminal
 * retention window, ended ones (`closed` — by the agent, or by an operator — or `expired`), newest
 * first. Label, run id, kind and project are the agent's own text and render as plain text.
 */
import { Countdown, LocalTime } from "@/components/Clock";
import type { SessionResource } from "@ma2h/protocol/session";

export function SessionTable({ sessions }: { sessions: SessionResource[] }) {
  if (sessions.length === 0)
    return (
      <p className="empty" data-testid="session-empty">
        No live or recent sessions.
      </p>
    );
  return (
    <table className="directives sessions" data-testid="session-table">
      <thead>
        <tr>
          <th>Session</th>
          <th>State</th>
          <th>Created</th>
          <th>Last seen</th>
          <th>Lease</th>
        </tr>
      </thead>
      <tbody>
        {sessions.map((s) => (
          <tr key={s.id} id={s.id} data-testid="session-row" data-session={s.id} data-state={s.state}>
            <td>
              <code>{s.id}</code>
              {(s.label || s.run_id || s.kind || s.project) && (
                <div className="when">
                  {[
                    s.label,
                    s.run_id && `run ${s.run_id}`,
                    s.kind && `kind ${s.kind}`,
                    s.project && `project ${s.project}`,
                  ]
                    .filter(Boolean)
                    .join(" · ")}
                </div>
              )}
            </td>
            <td>
              <span className={`status status-session-${s.state}`} data-testid="session-state">
                {s.state}
              </span>
              {s.closed_by_operator && (
                <span className="when" data-testid="session-by-operator">
                  {" "}
                  by an operator
                </span>
              )}
            </td>
            <td>
              <LocalTime iso={s.created_at} />
            </td>
            <td>{s.last_seen ? <LocalTime iso={s.last_seen} /> : <span className="when">—</span>}</td>
            <td>
              {s.state === "active" ? (
                <span className="session-lease">
                  <Countdown expiresAt={s.expires_at} />
                </span>
              ) : (
                <span className="when">
                  ended {s.closed_at ? <LocalTime iso={s.closed_at} /> : <LocalTime iso={s.expires_at} />}
                </span>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

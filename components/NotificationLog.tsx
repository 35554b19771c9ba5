import type { ItemNotificationLog } from "@/lib/notifications/item-log";
import { LocalTime } from "./Clock";

/**
 * An item's notifications: "reminded <time>" / "escalated <time>" once sent, for everyone who
 * sees the item; for the account's owners/admins (`log.rows` set) each notification row with its
 * attempts — handle, channel, kind, status, outcome, error class and time; never an address — and
 * the item's Slack channel post: its status, what it shows, attempts and last error.
 */
export function NotificationLog({ log }: { log: ItemNotificationLog }) {
  const { remindedAt, escalatedAt } = log.stamps;
  const rows = log.rows ?? [];
  const post = log.slackChannelPost;
  if (!remindedAt && !escalatedAt && rows.length === 0 && !post) return null;
  return (
    <section className="panel notifications" data-testid="notification-log">
      <h2>Notifications</h2>
      {(remindedAt || escalatedAt) && (
        <p data-testid="notification-stamps">
          {remindedAt && (
            <span data-testid="item-reminded">
              reminded <LocalTime iso={remindedAt} />
            </span>
          )}
          {remindedAt && escalatedAt && " · "}
          {escalatedAt && (
            <span data-testid="item-escalated">
              escalated <LocalTime iso={escalatedAt} />
            </span>
          )}
        </p>
      )}
      {post && (
        <p data-testid="slack-channel-post" data-status={post.status}>
          Slack channel post
          {post.channelId && (
            <>
              {" "}
              in <code>{post.channelId}</code>
            </>
          )}
          : <strong>{post.status}</strong>
          {post.status === "posted" && <> · shows {post.shownStatus}</>}
          {post.attempts > 0 && <> · {post.attempts === 1 ? "1 attempt" : `${post.attempts} attempts`}</>}
          {post.lastErrorClass && <> · last error {post.lastErrorClass}</>}
        </p>
      )}
      {rows.length > 0 && (
        <table className="admin-table" data-testid="notification-rows">
          <thead>
            <tr>
              <th>Person</th>
              <th>Channel</th>
              <th>Kind</th>
              <th>Status</th>
              <th>Attempts</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id} data-testid="notification-row" data-kind={r.kind} data-status={r.status}>
                <td>{r.handle ? <code>{`human:${r.handle}`}</code> : <em>no longer a member</em>}</td>
                <td>{r.channel}</td>
                <td>{r.kind}</td>
                <td>
                  <strong>{r.status}</strong>
                  {r.sentAt && (
                    <>
                      {" "}
                      <LocalTime iso={r.sentAt} />
                    </>
                  )}
                  {r.dueAt && (
                    <>
                      {" "}
                      · due <LocalTime iso={r.dueAt} />
                    </>
                  )}
                  {r.status === "cancelled" && r.lastErrorClass && <> ({r.lastErrorClass})</>}
                </td>
                <td>
                  {r.attempts.length === 0
                    ? "—"
                    : r.attempts.map((a) => (
                        <div key={`${a.attempt}-${a.outcome}-${a.at}`} data-testid="notification-attempt">
                          {[`#${a.attempt} ${a.outcome}`, a.errorClass, a.responseCode]
                            .filter((x) => x !== null)
                            .join(" · ")}{" "}
                          · <LocalTime iso={a.at} />
                        </div>
                      ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

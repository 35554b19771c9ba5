/**
 * Agent↔agent traffic (§8.7.1 "Human visibility"): one row per addressed message with who sent it
 * (the Hub-attested `from`, session included) to whom (`to` as sent), and both §14.2 tracks — the
 * mailbox track of its `message` entry (queued → delivered → acknowledged; bounced with `prior`;
 * expired = never delivered) and, for an ask/task, the §7 status, who resolved it and whether the
 * answer reached the asking agent. Titles are text; the body and context are read on the item page
 * through the one sanitizing Markdown renderer (§9.6).
 */
import Link from "next/link";
import { LocalTime } from "@/components/Clock";
import type { MailboxTrackView, TrafficEndpoint, TrafficResolutionView, TrafficRow } from "@/lib/inbox/traffic";
import { agentHref } from "./directive-table";

export function TrafficTable({
  rows,
  multiAccount,
  stopped,
}: {
  rows: TrafficRow[];
  multiAccount: boolean;
  /** `<account>\u0000<agent id>` of the page's stopped agents (§16.4.1), marked beside their names. */
  stopped: ReadonlySet<string>;
}) {
  if (rows.length === 0) return <p className="empty">No agent traffic matches.</p>;
  return (
    <table className="directives traffic" data-testid="traffic-table">
      <thead>
        <tr>
          <th>Sent</th>
          <th>Message</th>
          <th>From</th>
          <th>To</th>
          <th>Mailbox</th>
          <th>Resolution</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.id} data-testid="traffic-row" data-message-id={r.id} data-type={r.type}>
            <td>
              <LocalTime iso={r.createdAt} />
              {multiAccount && <span className="account"> · {r.account}</span>}
            </td>
            <td>
              <span className={`verb verb-${r.type}`}>{r.type}</span>{" "}
              <Link prefetch={false} href={`/inbox/${encodeURIComponent(r.id)}`} data-testid="traffic-title">
                {r.title}
              </Link>
            </td>
            <td data-testid="traffic-from">
              <Endpoint account={r.account} end={r.from} stopped={stopped} />
            </td>
            <td data-testid="traffic-to">
              <Endpoint account={r.account} end={r.to} stopped={stopped} />
            </td>
            <td className="track">
              <MailboxTrack track={r.mailbox} />
            </td>
            <td className="track">{r.resolution ? <ResolutionTrack res={r.resolution} /> : <span>—</span>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Endpoint({ account, end, stopped }: { account: string; end: TrafficEndpoint; stopped: ReadonlySet<string> }) {
  if (end.agentId === null) return <code>{end.address}</code>;
  return (
    <>
      <Link prefetch={false} href={agentHref(account, `agent:${end.agentId}`)}>
        <code>{end.agentId}</code>
      </Link>
      {stopped.has(`${account}\u0000${end.agentId}`) && (
        <>
          {" "}
          <span className="status status-cancelled" data-testid="traffic-agent-stopped">
            stopped
          </span>
        </>
      )}
      {end.session && (
        <div className="when" data-testid="traffic-session">
          session <code>{end.session}</code>
        </div>
      )}
    </>
  );
}

/** §14.2 the mailbox track of the `message` entry, with the explicit `prior` on a bounce. */
export function MailboxTrack({ track }: { track: MailboxTrackView | null }) {
  if (!track) return <span className="when">no entry (purged)</span>;
  return (
    <>
      <span className={`status status-${track.state}`} data-testid="mailbox-state">
        {track.state}
      </span>
      {track.deliveredAt && (
        <span className="when">
          {" "}
          delivered <LocalTime iso={track.deliveredAt} />
        </span>
      )}
      {track.acknowledgedAt && (
        <span className="when">
          {" "}
          · acknowledged <LocalTime iso={track.acknowledgedAt} />
        </span>
      )}
      {track.state === "bounced" && (
        <span className="when" data-testid="mailbox-prior">
          {" "}
          ·{" "}
          {track.prior === "delivered"
            ? "prior: delivered (seen, never acknowledged)"
            : track.prior === "queued"
              ? "prior: queued (never seen)"
              : "its session ended"}
        </span>
      )}
      {track.state === "expired" && <span className="when"> · never delivered</span>}
    </>
  );
}

/** §7 status, the attested resolver, and §14.2 the response track back to the asking agent. */
function ResolutionTrack({ res }: { res: TrafficResolutionView }) {
  return (
    <>
      <span className={`status status-${res.status}`} data-testid="resolution-status">
        {res.status}
      </span>
      {res.actor && (
        <span className="when" data-testid="resolution-actor">
          {" "}
          by <code>{res.actor}</code>
        </span>
      )}
      {res.resolvedAt && (
        <span className="when">
          {" "}
          <LocalTime iso={res.resolvedAt} />
        </span>
      )}
      {res.response && (
        <div className="when" data-testid="response-state" data-state={res.response}>
          {res.response === "not-delivered" && "not yet read by the asking agent"}
          {res.deliveredAt && (
            <>
              read by the asking agent <LocalTime iso={res.deliveredAt} />
            </>
          )}
          {res.acknowledgedAt && (
            <>
              {" "}
              · acknowledged <LocalTime iso={res.acknowledgedAt} />
            </>
          )}
        </div>
      )}
    </>
  );
}

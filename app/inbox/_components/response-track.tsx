/**
 * The agent's side of an item (§14.2, §15.4): on a pending ask/task whether the agent is waiting
 * now; on a resolved one whether the answer reached it and whether it acknowledged, with its note
 * rendered through the one sanitizing Markdown renderer (§9.6) — never as HTML.
 */
import { LocalTime } from "@/components/Clock";
import { MarkdownView } from "@/components/Markdown";
import type { ItemTrack } from "@/lib/inbox/response-track";

export function AgentWaiting({ track }: { track: ItemTrack }) {
  const w = track.waiting;
  if (!w) return null;
  return (
    <p className={`presence presence-${w.state}`} data-testid="agent-waiting" data-state={w.state}>
      {w.text}
      {w.last_seen && (
        <span className="muted">
          {" "}
          (last seen <LocalTime iso={w.last_seen} />)
        </span>
      )}
    </p>
  );
}

export function ResponseTrack({ track }: { track: ItemTrack }) {
  const r = track.response;
  if (!r) return null;
  return (
    <section className={`panel response-track track-${r.state}`} data-testid="response-track" data-state={r.state}>
      <h2>Agent</h2>
      {r.state === "not-delivered" && (
        <p>Not picked up by the agent yet: it gets the answer on its next poll or push.</p>
      )}
      {r.deliveredAt && (
        <p data-testid="track-delivered">
          Delivered to the agent <LocalTime iso={r.deliveredAt} />
        </p>
      )}
      {r.acknowledgedAt && (
        <p data-testid="track-acknowledged">
          Acknowledged
          {r.by && (
            <>
              {" "}
              by <code>{r.by}</code>
            </>
          )}{" "}
          <LocalTime iso={r.acknowledgedAt} />
        </p>
      )}
      {r.note && (
        <blockquote className="ack-note">
          <MarkdownView testId="ack-note">{r.note}</MarkdownView>
        </blockquote>
      )}
    </section>
  );
}

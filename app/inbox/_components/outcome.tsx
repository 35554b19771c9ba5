"use client";
/**
 * A terminal item's outcome (§6): who resolved it, when, and what — sensitive values masked. An
 * `edited` answer is the person's own words (§5.2 `allow_edit`), shown as plain text.
 */
import { LocalTime } from "@/components/Clock";
import type { ItemView, ResolutionView } from "@/lib/inbox/view";

const VERB: Record<string, string> = {
  answered: "Answered",
  declined: "Declined",
  cancelled: "Cancelled",
  expired: "Expired",
  completed: "Completed",
  dismissed: "Dismissed",
};

export function Outcome({ item, resolution: r }: { item: ItemView; resolution: ResolutionView }) {
  return (
    <section className={`panel outcome outcome-${r.resolution}`} data-testid="outcome" aria-live="polite">
      <h2>
        {VERB[r.resolution] ?? r.resolution} by <code>{r.actor}</code>
        {item.history.answeredFor && (
          <span data-testid="outcome-for">
            {" "}
            for <code>{item.history.answeredFor}</code>
          </span>
        )}
      </h2>
      {item.answeredByRule && (
        <p className="readonly" data-testid="outcome-rule">
          A standing rule set by <code>human:{item.answeredByRule.creator}</code> answered this, not a person:{" "}
          {item.answeredByRule.words} — {item.answeredByRule.hits} answer{item.answeredByRule.hits === 1 ? "" : "s"} so
          far ({item.answeredByRule.state}).
        </p>
      )}
      <p className="when">
        <LocalTime iso={r.resolvedAt} />
        {r.defaulted && " · the default on expiry was applied"}
        {r.edited && <span data-testid="outcome-edited"> · answered in their own words (not one of the options)</span>}
      </p>
      {r.value !== null && (
        <div className="value">
          <h3>Value</h3>
          {typeof r.value === "string" && r.edited ? (
            // §6 edited / §9.6: the person's own words — plain text, never HTML or Markdown.
            <p className="outcome-own-words" data-testid="outcome-value">
              {r.value}
            </p>
          ) : typeof r.value === "string" ? (
            <p data-testid="outcome-value">
              {r.valueLabel ? (
                <>
                  <strong>{r.valueLabel}</strong> <code>{r.value}</code>
                </>
              ) : (
                <code>{r.value}</code>
              )}
            </p>
          ) : (
            <dl className="values">
              {Object.entries(r.value).map(([k, v]) => (
                <div key={k}>
                  <dt>{item.ask?.fields.find((f) => f.name === k)?.title ?? k}</dt>
                  <dd>
                    <code>{typeof v === "string" ? v : JSON.stringify(v)}</code>
                  </dd>
                </div>
              ))}
            </dl>
          )}
        </div>
      )}
      {r.comment && (
        <blockquote className="comment-out">
          <p>{r.comment}</p>
        </blockquote>
      )}
      {r.checklist && (
        <ul className="checklist checklist-final">
          {r.checklist.map((c, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the recorded checklist, in its order, never reordered
            <li key={i} className={c.done ? "done" : "undone"}>
              <span aria-hidden="true">{c.done ? "☑" : "☐"}</span> {c.text}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * The item's hand-overs and escalations since submit (docs/policies.md "Reassignment",
 * "Escalation"), and — while it is open, for a person who may — the form that hands it on.
 */
import { ActionForm } from "@/components/ActionForm";
import { LocalTime } from "@/components/Clock";
import type { ItemView } from "@/lib/inbox/view";
import { reassignAction } from "../actions";

export function Handovers({ item }: { item: ItemView }) {
  const { handovers } = item.history;
  const choices = item.reassign;
  const canHand = choices !== null && choices.people.length + choices.groups.length > 0;
  if (handovers.length === 0 && !canHand) return null;
  return (
    <section className="panel handovers" data-testid="handovers">
      <h2>Assignment</h2>
      {handovers.length > 0 && (
        <ul>
          {handovers.map((h) => (
            <li key={`${h.at}-${h.to}`} data-testid="handover">
              {h.via === "escalation" ? "Escalated by the approval policy to " : "Handed to "}
              <code>{h.to}</code>
              {h.via === "reassign" && (
                <>
                  {" "}
                  by <code>{h.by}</code>
                </>
              )}
              , <LocalTime iso={h.at} />
              {h.answering.length > 0 && <> — may answer: {h.answering.join(", ")}</>}
              {h.told.length > 0 && <> — told only (not in allowed_resolvers): {h.told.join(", ")}</>}
              {h.note && <> — “{h.note}”</>}
            </li>
          ))}
        </ul>
      )}
      {canHand && choices && (
        <ActionForm action={reassignAction} hidden={{ message: item.id }} submit="Hand on" testId="reassign">
          <label>
            Hand to{" "}
            <select name="to" required data-testid="reassign-to">
              {choices.people.length > 0 && (
                <optgroup label="People">
                  {choices.people.map((h) => (
                    <option key={h} value={`human:${h}`}>
                      human:{h}
                    </option>
                  ))}
                </optgroup>
              )}
              {choices.groups.length > 0 && (
                <optgroup label="Groups">
                  {choices.groups.map((g) => (
                    <option key={g} value={`group:${g}`}>
                      group:{g}
                    </option>
                  ))}
                </optgroup>
              )}
            </select>
          </label>{" "}
          <label>
            Note <input name="note" maxLength={500} placeholder="optional" data-testid="reassign-note" />
          </label>
        </ActionForm>
      )}
    </section>
  );
}

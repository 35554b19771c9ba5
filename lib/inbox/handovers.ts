/**
 * What an item's page shows of who was added to it after submit and for whom it was answered
 * (docs/policies.md "Delegation", "Reassignment", "Escalation"), from its audit trail — the one
 * record of both an ask of the default policy (whose routing records nothing) and a routed one:
 * each hand-over and escalation, and the person a delegate answered for.
 */
import { db } from "../db";
import { AUDIT_EVENT, messageResolved } from "../audit/events";
import { TERMINAL_STATUSES } from "@ma2h/protocol/lifecycle";

export interface HandoverView {
  via: "reassign" | "escalation";
  to: string;
  by: string;
  at: string;
  /** `human:<handle>`s who may answer it since. */
  answering: string[];
  /** `human:<handle>`s only told (the ask's allowed_resolvers does not name them). */
  told: string[];
  note: string | null;
}

export interface ItemHistory {
  handovers: HandoverView[];
  /** The person the answer that settled it was given for, by their delegate; null otherwise. */
  answeredFor: string | null;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

export async function itemHistory(messageId: string): Promise<ItemHistory> {
  const terminal = TERMINAL_STATUSES.map(messageResolved);
  const rows = await db().auditEvent.findMany({
    where: {
      messageId,
      event: { in: [AUDIT_EVENT.messageReassigned, AUDIT_EVENT.messageEscalated, ...terminal] },
    },
    select: { event: true, actor: true, detail: true, at: true },
    orderBy: { id: "asc" },
  });
  const handovers: HandoverView[] = [];
  let answeredFor: string | null = null;
  for (const r of rows) {
    const d = (r.detail ?? {}) as Record<string, unknown>;
    if (r.event === AUDIT_EVENT.messageReassigned || r.event === AUDIT_EVENT.messageEscalated)
      handovers.push({
        via: r.event === AUDIT_EVENT.messageReassigned ? "reassign" : "escalation",
        to: typeof d.to === "string" ? d.to : "",
        by: r.actor,
        at: r.at.toISOString(),
        answering: strings(d.answering),
        told: strings(d.told),
        note: typeof d.note === "string" ? d.note : null,
      });
    else if (typeof d.for === "string") answeredFor = d.for;
  }
  return { handovers, answeredFor };
}

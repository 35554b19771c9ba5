/**
 * Adding people to an open ask or task after submit (docs/policies.md "Reassignment" and
 * "Escalation"): the one transaction both a hand-over (reassign.ts) and a policy escalation
 * (escalate.ts) run. The people named (`human:<handle>`, or a group's members now) are split into
 * those who may answer — a role that answers, named by the ask's explicit `allowed_resolvers` when
 * it has one (§9.1: nothing here widens that list), and not a sponsor the quorum excludes — and
 * those who are only told. On a routed ask the first join the recorded routing's `eligible`, and
 * the hand-over is recorded with it (`assigned`); on an ask of the default policy everyone who may
 * answer already may, so nothing about answering changes. Either way it is audited, the inbox is
 * told, and the people added get a notification of `kind` on their channels.
 */
import type { Prisma } from "../generated/prisma/client";
import type { Tx } from "../db";
import { writeAudit } from "../audit/write";
import type { AuditEventKind } from "../audit/events";
import { humanResolveRefusal } from "../messages/access";
import { envelopeOf } from "../messages/record";
import type { Assignment, Routing } from "../policies/evaluate";
import { publishInboxChange } from "../pubsub/inbox";
import type { Role } from "../principals/types";
import { plannedRows } from "../notifications/planned-rows";
import type { Kind } from "../notifications/kinds";
import type { PlanItem } from "../notifications/preferences";

/** The message row as an assignment reads it. */
export interface AssignableRow {
  id: string;
  accountId: string;
  type: string;
  priority: string;
  envelope: string;
  routing: string | null;
}

export interface Person {
  userId: string;
  handle: string;
  role: string;
}

/** The people a `human:<handle>` or `group:<name>` stands for now, seated in the account. */
export async function peopleNamed(tx: Tx, accountId: string, ref: string): Promise<Person[]> {
  const select = { userId: true, handle: true, role: true } as const;
  if (ref.startsWith("human:"))
    return tx.membership.findMany({ where: { accountId, handle: ref.slice("human:".length) }, select });
  return tx.membership.findMany({
    where: { accountId, groups: { some: { group: { accountId, name: ref.slice("group:".length) } } } },
    select,
    orderBy: { handle: "asc" },
  });
}

/** Why this person may not answer the ask once assigned, or null (§9.1 and separation of duties). */
export function assignedRefusal(row: AssignableRow, routing: Routing | null, p: Person): string | null {
  // Separation of duties: a sponsor the quorum excludes is never added (docs/policies.md "Quorum").
  const sponsors = routing?.quorum?.exclude_sponsors;
  if (sponsors?.sponsors.includes(p.handle))
    return `the account's approval policy (rule ${sponsors.rule}) does not ask you: sponsor of this agent`;
  // Judged as if the routing already asked them: what is left is the role and allowed_resolvers.
  const widened = routing === null ? null : { ...routing, eligible: [...routing.eligible, p.handle] };
  return humanResolveRefusal(
    { accountId: row.accountId, handle: p.handle, role: p.role as Role },
    envelopeOf(row),
    widened,
  );
}

/** An assignment worked out before its transaction (the notification plan reads through the pool). */
export interface PlannedAssignment {
  to: string;
  via: Assignment["via"];
  by: string;
  event: AuditEventKind;
  detail?: Record<string, unknown>;
  people: readonly Person[];
  /** The notification rows of the people told, due now. */
  rows: Prisma.NotificationCreateManyInput[];
}

/** Plans the notification rows of `kind` for the people an assignment tells (before its transaction). */
export async function planAssignment(
  row: AssignableRow,
  a: Omit<PlannedAssignment, "rows">,
  kind: Kind,
  now: Date,
): Promise<PlannedAssignment> {
  const item = { type: row.type, priority: row.priority } as PlanItem;
  const rows = await plannedRows(
    row,
    a.people.map((p) => p.userId),
    kind,
    item,
    now,
    now,
  );
  return { ...a, rows };
}

/**
 * Records the assignment on the message — which the caller has locked and found open, reading its
 * `routing` after the lock — audits it and writes its notification rows; the caller has checked
 * who may assign. Returns what was recorded.
 */
export async function commitAssignment(
  tx: Tx,
  row: AssignableRow,
  routing: Routing | null,
  a: PlannedAssignment,
  now: Date,
): Promise<Assignment> {
  const answering = a.people.filter((p) => assignedRefusal(row, routing, p) === null);
  const told = a.people.filter((p) => !answering.includes(p));
  const assignment: Assignment = {
    to: a.to,
    handles: answering.map((p) => p.handle).sort(),
    told: told.map((p) => p.handle).sort(),
    via: a.via,
    by: a.by,
    at: now.toISOString(),
  };
  if (routing !== null) {
    const next: Routing = {
      ...routing,
      eligible: [...new Set([...routing.eligible, ...assignment.handles])].sort(),
      assigned: [...(routing.assigned ?? []), assignment],
    };
    await tx.message.update({ where: { id: row.id }, data: { routing: JSON.stringify(next) } });
  }
  await writeAudit(tx, {
    accountId: row.accountId,
    messageId: row.id,
    actor: a.by,
    event: a.event,
    detail: {
      to: a.to,
      answering: assignment.handles.map((h) => `human:${h}`),
      told: assignment.told.map((h) => `human:${h}`),
      ...a.detail,
    } as Prisma.InputJsonValue,
    at: now,
  });
  await publishInboxChange(tx, row.accountId, row.id);
  await tx.notification.createMany({ data: a.rows, skipDuplicates: true });
  // One already holding a later row of this kind (an owner's escalation due after this one) is told now.
  await tx.notification.updateMany({
    where: {
      messageId: row.id,
      userId: { in: a.people.map((p) => p.userId) },
      kind: a.rows[0]?.kind ?? "",
      status: "pending",
      nextAttemptAt: { gt: now },
      createdAt: { lt: now },
    },
    data: { nextAttemptAt: now, updatedAt: now },
  });
  return assignment;
}

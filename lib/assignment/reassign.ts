/**
 * Handing an open ask or task to another person or group (docs/policies.md "Reassignment"):
 * "this one is for finance, not me". Owners, admins and the people who may answer it (a delegate
 * included) hand it on; the people it goes to must be able to answer it — a role that answers,
 * named by the ask's `allowed_resolvers` when it has one (§9.1), not a sponsor the quorum excludes —
 * and are added to those the recorded routing asks (assign.ts). Nobody is removed: a quorum that
 * could be met still can. Audited (`message.reassigned`), and the people added are told.
 */
import { clock } from "../clock";
import { db } from "../db";
import { HubError } from "@ma2h/protocol/errors";
import { AUDIT_EVENT } from "../audit/events";
import { humanResolveRefusal } from "../messages/access";
import { terminalConflict } from "../messages/conflict";
import { lockMessageForVote } from "../messages/approvals.sql";
import { envelopeOf } from "../messages/record";
import { KIND_ASSIGNED } from "../notifications/kinds";
import type { Assignment, Routing } from "../policies/evaluate";
import { routingOf } from "../policies/routing";
import { ADMIN_ROLES, seatFor } from "../principals/seats";
import type { Seat } from "../principals/types";
import { enqueueNotify } from "../queue/enqueue";
import {
  type AssignableRow,
  assignedRefusal,
  commitAssignment,
  type Person,
  peopleNamed,
  planAssignment,
} from "./assign";

const TARGET = /^(human:[a-z0-9._-]{1,64}|group:[a-z0-9][a-z0-9._-]{0,62})$/;
/** The longest note a hand-over carries (audited, shown on the item). */
export const MAX_REASSIGN_NOTE = 500;

const SELECT = {
  id: true,
  accountId: true,
  type: true,
  status: true,
  priority: true,
  envelope: true,
  routing: true,
  toAddress: true,
} as const;

type Row = AssignableRow & { status: string; toAddress: string | null };

/** Why this person may not hand the item on, or null: owners and admins, and whoever may answer it. */
export function reassignRefusal(seat: Seat, row: Row, routing: Routing | null): string | null {
  if (row.type === "notify") return "a notify asks no one to act: there is nothing to hand on";
  if (row.toAddress !== null) return "a message between agents is answered by its addressee: it is not handed on";
  if (ADMIN_ROLES.includes(seat.role)) return null;
  return humanResolveRefusal(seat, envelopeOf(row), routing) === null
    ? null
    : "only the account's owners and admins and the people asked hand an item on";
}

/** The item and the person's seat in its account, or 404 as for an unknown id (§9.1). */
async function load(userId: string, id: string): Promise<{ row: Row; seat: Seat }> {
  const row = await db().message.findUnique({ where: { id }, select: SELECT });
  const seat = row ? await seatFor(userId, row.accountId) : null;
  if (!row || !seat) throw new HubError("not_found", "no such message");
  return { row, seat };
}

/** Who the hand-over form offers: the people and groups it can go to, by handle and name. */
export interface ReassignChoices {
  people: string[];
  groups: string[];
}

/**
 * What the person may hand the item to: every person in the account who could answer it once
 * assigned and is not asked already, and every group with at least one such member. null when they
 * may not hand it on at all (or it is settled).
 */
export async function reassignChoices(userId: string, id: string): Promise<ReassignChoices | null> {
  const { row, seat } = await load(userId, id);
  const routing = routingOf(row);
  if (row.status !== "open" || reassignRefusal(seat, row, routing) !== null) return null;
  const members = await db().membership.findMany({
    where: { accountId: row.accountId },
    select: { userId: true, handle: true, role: true, groups: { select: { group: { select: { name: true } } } } },
    orderBy: { handle: "asc" },
  });
  const fresh = members.filter(
    (m) =>
      m.handle !== seat.handle && !routing?.eligible.includes(m.handle) && assignedRefusal(row, routing, m) === null,
  );
  const groups = [...new Set(fresh.flatMap((m) => m.groups.map((g) => g.group.name)))].sort();
  return { people: fresh.map((m) => m.handle), groups };
}

/**
 * Hands the open item to `to` (`human:<handle>` or `group:<name>`), by the signed-in person.
 * `422` when `to` is malformed or nobody it names could answer the item (saying why), `404` for an
 * unknown person or group, `403` when the person may not hand it on, `409` once it is settled.
 */
export async function reassignMessage(userId: string, id: string, to: string, note?: string): Promise<Assignment> {
  if (!TARGET.test(to)) throw new HubError("invalid_field", "hand an item to human:<handle> or group:<name>");
  const text = note?.trim() ?? "";
  if (text.length > MAX_REASSIGN_NOTE)
    throw new HubError("invalid_field", `a hand-over note is at most ${MAX_REASSIGN_NOTE} characters`);
  const { row, seat } = await load(userId, id);
  const routing = routingOf(row);
  const refusal = reassignRefusal(seat, row, routing);
  if (refusal !== null) throw new HubError("not_authorized", refusal);
  if (row.status !== "open") throw terminalConflict(row);
  const named = await peopleNamed(db(), row.accountId, to);
  if (named.length === 0)
    throw new HubError(
      "not_found",
      to.startsWith("human:") ? `${to} is not a member of this account` : `${to} has no members in this account`,
    );
  const people: Person[] = named.filter((p) => assignedRefusal(row, routing, p) === null);
  if (people.length === 0) {
    const why = assignedRefusal(row, routing, named[0] as Person);
    throw new HubError(
      "invalid_field",
      to.startsWith("human:") ? `${to} may not answer this item: ${why}` : `no one in ${to} may answer this item`,
    );
  }
  const now = clock.now();
  const by = `human:${seat.handle}`;
  const planned = await planAssignment(
    row,
    {
      to,
      via: "reassign",
      by,
      event: AUDIT_EVENT.messageReassigned,
      detail: text ? { note: text } : {},
      people,
    },
    KIND_ASSIGNED,
    now,
  );
  const assignment = await db().$transaction(async (tx) => {
    const locked = await lockMessageForVote(tx, id);
    if (locked === null || locked.status !== "open") return null;
    // The routing as it is now: another hand-over may have committed since it was read.
    const current = await tx.message.findUniqueOrThrow({ where: { id }, select: { routing: true } });
    return commitAssignment(tx, row, routingOf(current), planned, now);
  });
  if (assignment === null) {
    const settled = await db().message.findUniqueOrThrow({ where: { id }, select: { id: true, status: true } });
    throw terminalConflict(settled);
  }
  await enqueueNotify(id, `assigned-${now.getTime()}`);
  return assignment;
}

/**
 * Who may be told of a new item (docs/notifications.md "Who is told"); each person's
 * preferences (preferences.ts `deliveryPlan`) then decide whether and when:
 * - an ask or task: exactly the humans who may resolve it — the same §9.1 rule the inbox and
 *   `resolveMessage` apply (`humanResolveRefusal`): the humans `allowed_resolvers` names, or, when
 *   it is absent, every owner, admin and member of the item's account; and of those, when the
 *   account's approval policy routed it, only the people its recorded routing left eligible
 *   (docs/policies.md). A viewer never is. And the delegates whose out-of-office delegation window
 *   holds now of any of those people (docs/policies.md "Delegation") — told even when the ask's
 *   `allowed_resolvers` does not name them, which then keeps them from answering.
 * - a notify: every human seated in the account, viewers included — a notify asks no one to act
 *   (§5.1), and a viewer reads it in the inbox anyway; it is opt-in, so only those who chose it get it.
 * Agents are not mailed.
 */
import type { Routing } from "../policies/evaluate";
import { votersNow } from "../approvals/eligibility";
import { db } from "../db";
import { answersFor, humanResolveRefusal, toldAsDelegate } from "../messages/access";
import { clock } from "../clock";
import type { envelopeOf } from "../messages/record";
import { ADMIN_ROLES } from "../principals/seats";
import { RESOLVING_ROLES, type Role, type Seat } from "../principals/types";
import { KIND_ESCALATION } from "./kinds";
import { type AccountSeatRow, readAccountSeats } from "./recipients.sql";

export interface Recipient {
  userId: string;
  handle: string;
}

/** The audience of one item, by its type (see above). */
export async function audienceOf(
  accountId: string,
  envelope: ReturnType<typeof envelopeOf>,
  routing: Routing | null,
): Promise<Recipient[]> {
  return audienceAmong(await readAccountSeats(accountId, clock.now()), accountId, envelope, routing);
}

/** The audience among the account's seats (recipients.sql.ts, handle order). */
export function audienceAmong(
  seats: readonly AccountSeatRow[],
  accountId: string,
  envelope: ReturnType<typeof envelopeOf>,
  routing: Routing | null,
): Recipient[] {
  return envelope.type === "notify"
    ? seats.map((m) => ({ userId: m.userId, handle: m.handle }))
    : resolversAmong(seats, accountId, envelope, routing);
}

/** Every human with a seat in the account, whatever the role. */
export async function seatedHumans(accountId: string): Promise<Recipient[]> {
  return (await readAccountSeats(accountId, clock.now())).map((m) => ({ userId: m.userId, handle: m.handle }));
}

export async function resolvingHumans(
  accountId: string,
  envelope: ReturnType<typeof envelopeOf>,
  routing: Routing | null,
): Promise<Recipient[]> {
  return resolversAmong(await readAccountSeats(accountId, clock.now()), accountId, envelope, routing);
}

/** The seats that may resolve the item (§9.1, the routing), and the delegates told of it. */
function resolversAmong(
  seats: readonly AccountSeatRow[],
  accountId: string,
  envelope: ReturnType<typeof envelopeOf>,
  routing: Routing | null,
): Recipient[] {
  return seats
    .filter((m) => {
      if (!(RESOLVING_ROLES as readonly string[]).includes(m.role)) return false;
      const seat: Seat = { accountId, handle: m.handle, role: m.role as Role, delegators: m.delegators };
      return humanResolveRefusal(seat, envelope, routing) === null || toldAsDelegate(seat, envelope, routing);
    })
    .map((m) => ({ userId: m.userId, handle: m.handle }));
}

/**
 * The account's owners and admins: whom an escalation goes to (reminders.ts) — a routed ask's too,
 * though the policy may not ask them: the escalation tells those who run the account that an item
 * is stuck, and they can chase the people asked or change the policy for the next ones; it carries
 * no answer for them (docs/decisions/approval-policies.md).
 */
export async function accountAdmins(accountId: string): Promise<Recipient[]> {
  return adminsAmong(await readAccountSeats(accountId, clock.now()));
}

/** The owners and admins among the account's seats. */
export function adminsAmong(seats: readonly AccountSeatRow[]): Recipient[] {
  return seats
    .filter((m) => (ADMIN_ROLES as readonly string[]).includes(m.role))
    .map((m) => ({ userId: m.userId, handle: m.handle }));
}

/**
 * Whether the person may still get a notification of this kind, re-checked at send time: an
 * escalation goes to the account's owners/admins (whether or not they may resolve the item); a
 * new item's mail and a reminder to the §9.1 resolvers. Returns the row's error class, or null.
 */
export function recipientRefusal(
  kind: string,
  seat: Seat | null,
  envelope: ReturnType<typeof envelopeOf>,
  routing: Routing | null,
) {
  if (kind === KIND_ESCALATION)
    return seat && (ADMIN_ROLES.includes(seat.role) || escalatedTo(seat.handle, routing)) ? null : "not_admin";
  if (seat === null) return "not_resolver";
  return humanResolveRefusal(seat, envelope, routing) === null || toldAsDelegate(seat, envelope, routing)
    ? null
    : "not_resolver";
}

/** Whether the approval policy's escalation assigned or told this person (lib/assignment/escalate.ts). */
function escalatedTo(handle: string, routing: Routing | null): boolean {
  return (
    routing?.assigned?.some((a) => a.via === "escalation" && (a.handles.includes(handle) || a.told.includes(handle))) ??
    false
  );
}

/**
 * Why the person may not answer the item now, or null when they may — what decides whether a
 * notification offers them answer links, buttons or actions. §9.1 and the routing recorded at
 * submit (`humanResolveRefusal`: under `exclude_sponsors` the agent's sponsors then were never
 * eligible); and, for an ask a quorum rule routed, their eligibility now as the vote counts it
 * (lib/approvals/eligibility.ts: someone made a sponsor of the agent since submit no longer counts).
 */
export async function answerRefusal(
  seat: Seat | null,
  message: { accountId: string; agentRowId: string },
  envelope: ReturnType<typeof envelopeOf>,
  routing: Routing | null,
): Promise<string | null> {
  if (seat === null) return "no seat in the account";
  const refusal = humanResolveRefusal(seat, envelope, routing);
  if (refusal !== null || !routing?.quorum) return refusal;
  const membership = await db().membership.findFirst({
    where: { accountId: message.accountId, handle: seat.handle },
    select: { id: true },
  });
  if (membership === null) return "no seat in the account";
  const onBehalfOf = new Map([[membership.id, answersFor(seat, routing)]]);
  const now = (await votersNow(db(), message, routing, [membership.id], onBehalfOf)).get(membership.id);
  return now === undefined ? "no seat in the account" : now.ineligible;
}

/**
 * Whether an item is still worth telling anyone about: an ask or task while it is `open` (once
 * resolved, expired or cancelled nobody needs to act); a notify is `delivered` on acceptance and
 * stays so (§5.1, §7 — it has no later state), so it is tellable for as long as it exists.
 */
export function stillTellable(type: string, status: string): boolean {
  return type === "notify" ? status === "delivered" : status === "open";
}

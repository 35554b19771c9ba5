/**
 * Out-of-office delegation (docs/policies.md "Delegation"): a person names a delegate and a time
 * window in one account; while the window holds, the delegate may answer in their place the asks
 * the approval policy assigns to them (lib/messages/access.ts `answersFor`), and is told of them.
 * One delegation per person and account — setting a new one replaces it. The person sets their own
 * on their settings page; the operator sets anyone's (`ma2h-hub user delegate`). Each change is one
 * transaction with its audit row, under the account's row lock so it serialises with seat changes.
 */
import { clock } from "../clock";
import { db, type Tx } from "../db";
import { HubError } from "@ma2h/protocol/errors";
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit } from "../audit/write";
import { lockAccount } from "../principals/seat-locks";
import { RESOLVING_ROLES, type Role } from "../principals/types";

/** The longest window one delegation may have: a longer absence is a role change, not an out-of-office. */
export const MAX_DELEGATION_DAYS = 90;

export interface DelegationInfo {
  delegator: string;
  delegate: string;
  startsAt: Date;
  endsAt: Date;
  /** Whether the window holds now. */
  active: boolean;
}

const SELECT = {
  startsAt: true,
  endsAt: true,
  delegator: { select: { handle: true } },
  delegate: { select: { handle: true } },
} as const;

type Row = { startsAt: Date; endsAt: Date; delegator: { handle: string }; delegate: { handle: string } };
const infoOf = (r: Row, now: Date): DelegationInfo => ({
  delegator: r.delegator.handle,
  delegate: r.delegate.handle,
  startsAt: r.startsAt,
  endsAt: r.endsAt,
  active: r.startsAt <= now && now < r.endsAt,
});

/** A seat that may answer asks, by handle, or `404`/`422` saying why not. */
async function answeringSeat(tx: Tx, accountId: string, handle: string, who: string) {
  const m = await tx.membership.findFirst({ where: { accountId, handle }, select: { id: true, role: true } });
  if (m === null) throw new HubError("not_found", `human:${handle} is not a member of this account`);
  if (!RESOLVING_ROLES.includes(m.role as Role))
    throw new HubError("invalid_field", `${who} human:${handle} has the ${m.role} role, which does not answer asks`);
  return m.id;
}

export interface DelegationRequest {
  accountId: string;
  /** Who is away. */
  delegator: string;
  /** Who answers for them. */
  delegate: string;
  startsAt: Date;
  endsAt: Date;
  /** The attested actor of the change: `human:<handle>` or the operator's. */
  actor: string;
}

/**
 * Sets (or replaces) the person's delegation. Refused `422` when the window is empty, over, or
 * longer than MAX_DELEGATION_DAYS, when a person would delegate to themselves, or when either of
 * them has a role that does not answer asks.
 */
export async function setDelegation(r: DelegationRequest): Promise<DelegationInfo> {
  const now = clock.now();
  if (!(r.startsAt < r.endsAt)) throw new HubError("invalid_field", "the window must end after it starts");
  if (r.endsAt <= now) throw new HubError("invalid_field", "the window has already ended");
  if (r.endsAt.getTime() - r.startsAt.getTime() > MAX_DELEGATION_DAYS * 86_400_000)
    throw new HubError("invalid_field", `a delegation lasts at most ${MAX_DELEGATION_DAYS} days`);
  if (r.delegator === r.delegate) throw new HubError("invalid_field", "a person cannot delegate to themselves");
  return db().$transaction(async (tx) => {
    await lockAccount(tx, r.accountId);
    const delegatorId = await answeringSeat(tx, r.accountId, r.delegator, "the delegator");
    const delegateId = await answeringSeat(tx, r.accountId, r.delegate, "the delegate");
    const data = { accountId: r.accountId, delegateId, startsAt: r.startsAt, endsAt: r.endsAt, createdAt: now };
    const row = await tx.delegation.upsert({
      where: { delegatorId },
      create: { delegatorId, ...data },
      update: data,
      select: SELECT,
    });
    await writeAudit(tx, {
      accountId: r.accountId,
      actor: r.actor,
      event: AUDIT_EVENT.delegationSet,
      detail: {
        delegator: `human:${r.delegator}`,
        delegate: `human:${r.delegate}`,
        starts_at: r.startsAt.toISOString(),
        ends_at: r.endsAt.toISOString(),
      },
      at: now,
    });
    return infoOf(row, now);
  });
}

/** Ends the person's delegation now (deletes it), audited; false when they had none. */
export async function clearDelegation(accountId: string, delegator: string, actor: string): Promise<boolean> {
  const now = clock.now();
  return db().$transaction(async (tx) => {
    await lockAccount(tx, accountId);
    const seat = await tx.membership.findFirst({ where: { accountId, handle: delegator }, select: { id: true } });
    if (seat === null) throw new HubError("not_found", `human:${delegator} is not a member of this account`);
    const gone = await tx.delegation.deleteMany({ where: { delegatorId: seat.id } });
    if (gone.count === 0) return false;
    await writeAudit(tx, {
      accountId,
      actor,
      event: AUDIT_EVENT.delegationCleared,
      detail: { delegator: `human:${delegator}` },
      at: now,
    });
    return true;
  });
}

/** The person's delegation in the account (active, future or past its end), or null. */
export async function delegationOf(accountId: string, handle: string): Promise<DelegationInfo | null> {
  const row = await db().delegation.findFirst({ where: { accountId, delegator: { handle } }, select: SELECT });
  return row ? infoOf(row, clock.now()) : null;
}

/** Every delegation of the account, by delegator — and those naming `delegate` only, when given. */
export async function listDelegations(accountId: string, delegate?: string): Promise<DelegationInfo[]> {
  const now = clock.now();
  const rows = await db().delegation.findMany({
    where: { accountId, ...(delegate === undefined ? {} : { delegate: { handle: delegate } }) },
    select: SELECT,
  });
  return rows.map((r) => infoOf(r, now)).sort((a, b) => a.delegator.localeCompare(b.delegator));
}

/**
 * The account's delegations whose window holds at `now`, as each delegate's delegators (those with a
 * role that answers) — what the notification audience adds (lib/notifications/recipients.ts).
 */
export async function activeDelegators(accountId: string, now: Date, q: Tx = db()): Promise<Map<string, string[]>> {
  const rows = await q.delegation.findMany({
    where: {
      accountId,
      startsAt: { lte: now },
      endsAt: { gt: now },
      delegator: { role: { in: [...RESOLVING_ROLES] } },
    },
    select: { delegator: { select: { handle: true } }, delegate: { select: { handle: true } } },
  });
  const out = new Map<string, string[]>();
  for (const r of rows) out.set(r.delegate.handle, [...(out.get(r.delegate.handle) ?? []), r.delegator.handle].sort());
  return out;
}

/** The people of the account a person may name as their delegate: everyone else whose role answers asks. */
export async function delegateChoices(accountId: string, handle: string): Promise<string[]> {
  const rows = await db().membership.findMany({
    where: { accountId, role: { in: [...RESOLVING_ROLES] }, handle: { not: handle } },
    select: { handle: true },
    orderBy: { handle: "asc" },
  });
  return rows.map((r) => r.handle);
}

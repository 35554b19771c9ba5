/**
 * A person's seats: the one module that asks which accounts a person sits in, and with what role
 * (§9.1 — a seat is a membership; its handle is the attested actor `human:<handle>`). Every page,
 * server action, `/v1` caller check and sign-in decision reads seats through here.
 */
import { clock } from "../clock";
import { db, type Tx } from "../db";
import { HubError } from "@ma2h/protocol/errors";
import { readSeatInAccount } from "./seats.sql";
import { RESOLVING_ROLES, ROLES, type Role, type Seat } from "./types";

/** Roles that administer an account (agents, keys, bindings, members, audit — docs/admin.md). */
export const ADMIN_ROLES: readonly Role[] = ["owner", "admin"];

/** A seat named by its account's slug too, as pages and forms name accounts. */
export interface AccountSeat extends Seat {
  slug: string;
}

/** An owner or admin seat, with the attested actor of this person's changes in the account (§9.1). */
export interface AdminSeat extends AccountSeat {
  actor: string;
}

const isRole = (role: string): role is Role => (ROLES as readonly string[]).includes(role);

/** Every account the person has a seat in, by slug: the whole of what the inbox may show them (§9.1). */
export async function seatsOf(userId: string): Promise<AccountSeat[]> {
  const now = clock.now();
  const rows = await db().membership.findMany({
    where: { userId },
    select: {
      accountId: true,
      handle: true,
      role: true,
      account: { select: { slug: true } },
      // The people whose out-of-office delegation names this seat now (Seat.delegators).
      delegatedTo: {
        where: { startsAt: { lte: now }, endsAt: { gt: now }, delegator: { role: { in: [...RESOLVING_ROLES] } } },
        select: { delegator: { select: { handle: true } } },
      },
    },
  });
  return rows
    .filter((r) => isRole(r.role))
    .map((r) => ({
      accountId: r.accountId,
      slug: r.account.slug,
      handle: r.handle,
      role: r.role as Role,
      delegators: r.delegatedTo.map((d) => d.delegator.handle).sort(),
    }))
    .sort((a, b) => a.slug.localeCompare(b.slug));
}

/** The membership id of the seat `handle` holds in the account (in the caller's transaction), or null. */
export async function seatIdByHandle(q: Tx, accountId: string, handle: string): Promise<string | null> {
  const m = await q.membership.findFirst({ where: { accountId, handle }, select: { id: true } });
  return m?.id ?? null;
}

/** As `seatIdByHandle`, or `404` naming the person (groups and sponsors name people by handle). */
export async function requireSeatId(q: Tx, accountId: string, handle: string): Promise<string> {
  const id = await seatIdByHandle(q, accountId, handle);
  if (id === null) throw new HubError("not_found", `human:${handle} is not a member of this account`);
  return id;
}

/** The person's seat (handle and role) in an account, or null when they hold none there. */
export async function seatFor(userId: string, accountId: string): Promise<Seat | null> {
  const m = await readSeatInAccount(userId, accountId, clock.now());
  if (!m || !isRole(m.role)) return null;
  return { accountId: m.accountId, handle: m.handle, role: m.role, delegators: m.delegators };
}

/** The person's seats, in one account only when `accountId` is given (directive authoring, §13). */
export async function seatsIn(userId: string, accountId?: string): Promise<Seat[]> {
  const rows = await db().membership.findMany({
    where: { userId, ...(accountId ? { accountId } : {}) },
    select: { accountId: true, handle: true, role: true },
  });
  return rows.filter((r): r is Seat => isRole(r.role));
}

/** The person's seat in the account `slug` (pages and forms name accounts by slug), or null. */
export async function seatBySlug(userId: string, slug: string): Promise<AccountSeat | null> {
  const m = await db().membership.findFirst({
    where: { userId, account: { slug } },
    select: { accountId: true, handle: true, role: true, account: { select: { slug: true } } },
  });
  if (!m || !isRole(m.role)) return null;
  return { accountId: m.accountId, slug: m.account.slug, handle: m.handle, role: m.role };
}

/**
 * The person's seat in the account `slug` when it is an owner or admin seat, else null — the one
 * check every admin page, action and export makes (a member, a viewer and another account's admin
 * all get null, and the caller answers 404).
 */
export async function adminSeat(userId: string, slug: string): Promise<AdminSeat | null> {
  const seat = await seatBySlug(userId, slug);
  if (!seat || !ADMIN_ROLES.includes(seat.role)) return null;
  return { ...seat, actor: `human:${seat.handle}` };
}

/** The accounts (by slug) where the person is an owner or admin. */
export async function adminAccountsOf(userId: string): Promise<string[]> {
  const rows = await db().membership.findMany({
    where: { userId, role: { in: [...ADMIN_ROLES] } },
    select: { account: { select: { slug: true } } },
  });
  return rows.map((r) => r.account.slug).sort();
}

/**
 * Whether the person still holds a seat anywhere. A bound identity whose last seat was removed is
 * refused at sign-in like an uninvited one, instead of reaching an empty inbox.
 */
export async function hasAnySeat(userId: string): Promise<boolean> {
  return (await db().membership.count({ where: { userId } })) > 0;
}

/**
 * The account a person's read is about (`?account=<slug>`, else their only account), or null for a
 * person with no seat at all (nothing is theirs). Presence and session reads (§15.3, §16.4) share it.
 */
export async function readerAccountId(userId: string, slug: string | null): Promise<string | null> {
  if (slug !== null) {
    const seat = await seatBySlug(userId, slug);
    if (!seat) throw new HubError("not_found", `account ${slug} not found`);
    return seat.accountId;
  }
  const seats = await seatsOf(userId);
  if (seats.length > 1)
    throw new HubError(
      "validation_error",
      "account: required — you hold seats in several accounts; name the agent's with ?account=<slug>",
    );
  return seats[0]?.accountId ?? null;
}

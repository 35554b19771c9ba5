/**
 * The statement behind lib/notifications/recipients.ts, on the pool: every seat of an account —
 * person, handle, role — with, for each, the people whose out-of-office delegation names it now
 * (the same rule as lib/delegation/store.ts `activeDelegators` and lib/principals/seats.sql.ts:
 * the window holds, the delegator's role answers asks), in handle order. One read gives a fan-out
 * its audience (any type) and the account's owners and admins.
 */
import { statementRows } from "../db";
import { Prisma } from "../generated/prisma/client";
import { RESOLVING_ROLES } from "../principals/types";
import { statement } from "../sql-statement";

export interface AccountSeatRow {
  userId: string;
  handle: string;
  role: string;
  delegators: string[];
}

export const accountSeats = statement(
  "an account's seats with the delegations that name each now",
  (accountId: string, now: Date) => Prisma.sql`SELECT m.user_id AS "userId", m.handle, m.role,
                ARRAY(SELECT f.handle FROM delegations d JOIN memberships f ON f.id = d.delegator_id
                       WHERE d.delegate_id = m.id AND d.starts_at <= ${now}::timestamptz
                         AND d.ends_at > ${now}::timestamptz AND f.role = ANY(${[...RESOLVING_ROLES]}::text[])
                       ORDER BY f.handle) AS delegators
           FROM memberships m
          WHERE m.account_id = ${accountId}
          ORDER BY m.handle`,
  [["acc_sample", new Date(0)]],
);

export async function readAccountSeats(accountId: string, now: Date): Promise<AccountSeatRow[]> {
  return statementRows<AccountSeatRow>(accountSeats.sql(accountId, now));
}

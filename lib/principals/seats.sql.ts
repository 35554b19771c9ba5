/** The statement behind lib/principals/seats.ts. */
import { statementRows } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";
import { RESOLVING_ROLES } from "./types";

export const seatInAccount = statement(
  "a person's membership (handle and role) in an account, with the people whose delegation names it now",
  (userId: string, accountId: string, now: Date) => Prisma.sql`SELECT m.account_id AS "accountId", m.handle, m.role,
                ARRAY(SELECT f.handle FROM delegations d JOIN memberships f ON f.id = d.delegator_id
                       WHERE d.delegate_id = m.id AND d.starts_at <= ${now}::timestamptz
                         AND d.ends_at > ${now}::timestamptz AND f.role = ANY(${[...RESOLVING_ROLES]}::text[])
                       ORDER BY f.handle) AS delegators
           FROM memberships m
          WHERE m.account_id = ${accountId} AND m.user_id = ${userId}`,
  [["usr_sample", "acc_sample", new Date(0)]],
);

/** One statement on the pool (lib/db.ts statementRows): read on every resolve by a person. */
export async function readSeatInAccount(
  userId: string,
  accountId: string,
  now: Date,
): Promise<{ accountId: string; handle: string; role: string; delegators: string[] } | undefined> {
  const [m] = await statementRows<{ accountId: string; handle: string; role: string; delegators: string[] }>(
    seatInAccount.sql(userId, accountId, now),
  );
  return m;
}

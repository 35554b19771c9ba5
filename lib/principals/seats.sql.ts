/** The statement behind lib/principals/seats.ts. */
import { statementRows } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";

export const seatInAccount = statement(
  "a person's membership (handle and role) in an account",
  (userId: string, accountId: string) => Prisma.sql`SELECT account_id AS "accountId", handle, role FROM memberships
                WHERE account_id = ${accountId} AND user_id = ${userId}`,
  [["usr_sample", "acc_sample"]],
);

/** One statement on the pool (lib/db.ts statementRows): read on every resolve by a person. */
export async function readSeatInAccount(
  userId: string,
  accountId: string,
): Promise<{ accountId: string; handle: string; role: string } | undefined> {
  const [m] = await statementRows<{ accountId: string; handle: string; role: string }>(
    seatInAccount.sql(userId, accountId),
  );
  return m;
}

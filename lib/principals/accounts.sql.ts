/** The statement behind lib/principals/accounts.ts. */
import type { Tx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";

export const accountForUpdate = statement(
  "lock an account row, reading whether it is there",
  (accountId: string) => Prisma.sql`SELECT id FROM accounts WHERE id = ${accountId} FOR UPDATE`,
  [["acc_sample"]],
);

/** Locks the account row for the transaction; false when there is none. */
export async function lockAccountIfAny(tx: Tx, accountId: string): Promise<boolean> {
  const locked = await tx.$queryRaw<{ id: string }[]>(accountForUpdate.sql(accountId));
  return locked.length > 0;
}

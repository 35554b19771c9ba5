/** The statements behind lib/principals/seat-locks.ts. */
import type { Tx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";

export const accountRowLock = statement(
  "lock an account row for the transaction",
  (accountId: string) => Prisma.sql`SELECT 1 FROM accounts WHERE id = ${accountId} FOR UPDATE`,
  [["acc_sample"]],
);

export async function lockAccountRow(tx: Tx, accountId: string): Promise<void> {
  await tx.$executeRaw(accountRowLock.sql(accountId));
}

export const personRowLock = statement(
  "lock a person's row for the transaction",
  (userId: string) => Prisma.sql`SELECT 1 FROM users WHERE id = ${userId} FOR UPDATE`,
  [["usr_sample"]],
);

export async function lockPersonRow(tx: Tx, userId: string): Promise<void> {
  await tx.$executeRaw(personRowLock.sql(userId));
}

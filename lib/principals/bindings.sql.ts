/** The statement behind lib/principals/bindings.ts. */
import type { Tx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";

export const bindingRowLock = statement(
  "lock a callback binding's row for the transaction",
  (bindingId: string) => Prisma.sql`SELECT 1 FROM callback_bindings WHERE id = ${bindingId} FOR UPDATE`,
  [["bnd_sample"]],
);

export async function lockBindingRow(tx: Tx, bindingId: string): Promise<void> {
  await tx.$executeRaw(bindingRowLock.sql(bindingId));
}

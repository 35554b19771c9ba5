/** The statement behind lib/keys/signing-keys.ts. */
import type { Tx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";

const KEY_LOCK = 0x6d61326b; // "ma2k"

export const keyOwnerLock = statement(
  "take a signing key owner's creation lock for the transaction",
  (accountId: string | null) =>
    accountId === null
      ? Prisma.sql`SELECT pg_advisory_xact_lock(${KEY_LOCK})`
      : Prisma.sql`SELECT pg_advisory_xact_lock(${KEY_LOCK}, hashtext(${accountId}))`,
  [[null], ["acc_sample"]],
);

/** Serialises key creation per owner: the Hub-wide key, or one account's. */
export async function lockKeyOwner(tx: Tx, accountId: string | null): Promise<void> {
  await tx.$executeRaw(keyOwnerLock.sql(accountId));
}

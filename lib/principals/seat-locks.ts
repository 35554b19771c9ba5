/**
 * The row locks that serialise seat changes for the rest of a transaction, always taken in this
 * order — the account, then the person — so two changes never wait on each other in a cycle.
 */
import type { Tx } from "../db";
import { lockAccountRow, lockPersonRow } from "./seat-locks.sql";

/**
 * The account row: an account's role changes, removals, invitations and their acceptance run one
 * at a time, so rules that read several rows (the last owner; a handle free across members and
 * invitations) hold.
 */
export async function lockAccount(tx: Tx, accountId: string): Promise<void> {
  await lockAccountRow(tx, accountId);
}

/**
 * The person's row: removals of their seats in two accounts, or a removal and an acceptance, run
 * one at a time, so "was this the last seat?" is answered on committed rows and exactly once.
 */
export async function lockPerson(tx: Tx, userId: string): Promise<void> {
  await lockPersonRow(tx, userId);
}

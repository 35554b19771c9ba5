/** The statements behind lib/audit/purge.ts (`ma2h-hub account purge`). */
import type { Tx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";
import type { AuditStream } from "./chain";
import { inStream, STREAM_SAMPLES } from "./seal.sql";

export const accountBySlugForUpdate = statement(
  "lock the account named by a slug",
  (slug: string) => Prisma.sql`SELECT id FROM accounts WHERE slug = ${slug} FOR UPDATE`,
  [["acme"]],
);

/** The account's id, its row locked until the transaction ends; undefined when there is none. */
export async function lockAccountBySlug(tx: Tx, slug: string): Promise<string | undefined> {
  const found = await tx.$queryRaw<{ id: string }[]>(accountBySlugForUpdate.sql(slug));
  return found[0]?.id;
}

export const streamRowCount = statement(
  "how many rows an audit stream has",
  (s: AuditStream) => Prisma.sql`SELECT count(*) AS n FROM audit_events WHERE ${inStream(s)}`,
  STREAM_SAMPLES.map((s) => [s]),
);

export async function countStreamRows(tx: Tx, s: AuditStream): Promise<number> {
  const [count] = await tx.$queryRaw<{ n: bigint }[]>(streamRowCount.sql(s));
  return Number(count?.n ?? 0);
}

/** Only the table's owner may (ALTER TABLE): why purges run as the owner (./purge.ts). */
export const disableAppendOnly = statement(
  "switch audit_events' append-only trigger off (owner only)",
  () => Prisma.sql`ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only`,
  { unplanned: "ALTER TABLE … DISABLE TRIGGER is DDL, which EXPLAIN does not take" },
);

export const enableAppendOnly = statement(
  "switch audit_events' append-only trigger back on",
  () => Prisma.sql`ALTER TABLE audit_events ENABLE TRIGGER audit_events_append_only`,
  { unplanned: "ALTER TABLE … ENABLE TRIGGER is DDL, which EXPLAIN does not take" },
);

export async function switchAppendOnly(tx: Tx, on: boolean): Promise<void> {
  await tx.$executeRaw((on ? enableAppendOnly : disableAppendOnly).sql());
}

export const deleteAccount = statement(
  "delete an account row (its cascades erase the account's data)",
  (accountId: string) => Prisma.sql`DELETE FROM accounts WHERE id = ${accountId}`,
  [["acc_sample"]],
);

export async function runDeleteAccount(tx: Tx, accountId: string): Promise<void> {
  await tx.$executeRaw(deleteAccount.sql(accountId));
}

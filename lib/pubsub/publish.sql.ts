/**
 * The one NOTIFY of the Hub's publishers (credentials.ts, inbox.ts, seats.ts, terminal.ts): inside the
 * caller's transaction, so it is delivered on commit — a rolled-back change tells nobody.
 */
import type { Tx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";
import { type Channel, INBOX_CHANNEL } from "./channels";

export const notify = statement(
  "notify a channel, on commit",
  (channel: Channel, payload: string) => Prisma.sql`SELECT pg_notify(${channel}, ${payload})`,
  [[INBOX_CHANNEL, "acc_sample:msg_sample"]],
);

export async function publishOn(tx: Tx, channel: Channel, payload: string): Promise<void> {
  await tx.$executeRaw(notify.sql(channel, payload));
}

/** The statement behind lib/pubsub/listener.ts, on its own LISTEN connection (a pg client, not the pool). */
import type pg from "pg";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";
import type { Channel } from "./channels";

/** A channel is an identifier, not a value: the names are ./channels.ts's constants, never input. */
export const listen = statement(
  "listen on a notification channel",
  (channel: Channel) => Prisma.sql`LISTEN ${Prisma.raw(channel)}`,
  { unplanned: "LISTEN is not a statement EXPLAIN takes" },
);

export async function listenOn(client: pg.Client, channel: Channel): Promise<void> {
  await client.query(listen.sql(channel).text);
}

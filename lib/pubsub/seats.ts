/**
 * Publishing a person's seat change on SEATS_CHANNEL: the payload is the user id alone (ids only,
 * as on every channel). A browser's live inbox stream of that person re-reads the seats and ends if
 * they changed, so a removed seat stops routing within a second (lib/inbox/events.ts).
 */
import type { Tx } from "../db";
import { SEATS_CHANNEL } from "./channels";
import { publishOn } from "./publish.sql";

/** Tells the person's live streams that their seats changed, when `tx` commits. */
export async function publishSeatChange(tx: Tx, userId: string): Promise<void> {
  await publishOn(tx, SEATS_CHANNEL, userId);
}

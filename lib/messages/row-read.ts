/**
 * The message row with its resolution, read in one statement on the pool: the read in front of
 * every resolve, cancel and poll — and before each long-poll parks — without the client's per-query
 * cost (lib/db.ts statementRows). The column maps (./row-read.sql.ts) are typed against Prisma's
 * models, so a column added to `messages` or `resolutions` fails the type check until it is read too.
 */
import type { Message as MessageRow, Resolution } from "../generated/prisma/client";
import type { MailboxTrackRow } from "./mailbox-track";
import type { MessageWithResolution } from "./record";
import { type JoinedMessageRow, MESSAGE_COLUMNS, RESOLUTION_COLUMNS, selectMessageRow } from "./row-read.sql";

export async function readMessageRow(id: string): Promise<MessageWithResolution | null> {
  const joined = await selectMessageRow(id);
  if (!joined) return null;
  const message = {} as Record<string, unknown>;
  for (const field of Object.keys(MESSAGE_COLUMNS)) message[field] = joined[field as keyof MessageRow];
  let resolution: Resolution | null = null;
  if (joined.r_id !== null) {
    const r = {} as Record<string, unknown>;
    for (const field of Object.keys(RESOLUTION_COLUMNS)) r[field] = joined[`r_${field}` as keyof JoinedMessageRow];
    resolution = r as unknown as Resolution;
  }
  const mailbox: MailboxTrackRow | null =
    joined.e_state === null
      ? null
      : {
          state: joined.e_state,
          deliveredAt: joined.e_deliveredAt,
          acknowledgedAt: joined.e_acknowledgedAt,
          prior: joined.e_prior,
        };
  return { ...(message as unknown as MessageRow), resolution, mailbox };
}

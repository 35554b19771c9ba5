/**
 * The message row with its resolution, read in one statement on the pool: the read in front of
 * every resolve, cancel and poll — and before each long-poll parks — without the client's per-query
 * cost (lib/db.ts statementRows). The column maps (./row-read.sql.ts) are typed against Prisma's
 * models, so a column added to `messages` or `resolutions` fails the type check until it is read too.
 */
import type { Message as MessageRow, Resolution } from "../generated/prisma/client";
import type { MailboxTrackRow } from "./mailbox-track";
import type { MessageWithResolution } from "./record";
import { processWide } from "../process-wide";
import {
  type JoinedMessageRow,
  MESSAGE_COLUMNS,
  RESOLUTION_COLUMNS,
  selectMessageRow,
  selectMessageRows,
} from "./row-read.sql";

/** A row selected with MESSAGE_RESOLUTION_LIST: the message's fields and its resolution's, `r_`-prefixed. */
export type MessageResolutionRow = MessageRow & { [K in keyof Resolution as `r_${K}`]: Resolution[K] | null };

/** The message and its resolution (null when none) out of a row selected with MESSAGE_RESOLUTION_LIST. */
export function messageAndResolutionOf(joined: MessageResolutionRow): {
  message: MessageRow;
  resolution: Resolution | null;
} {
  const message = {} as Record<string, unknown>;
  for (const field of Object.keys(MESSAGE_COLUMNS)) message[field] = joined[field as keyof MessageRow];
  let resolution: Resolution | null = null;
  if (joined.r_id !== null) {
    const r = {} as Record<string, unknown>;
    for (const field of Object.keys(RESOLUTION_COLUMNS)) r[field] = joined[`r_${field}` as keyof MessageResolutionRow];
    resolution = r as unknown as Resolution;
  }
  return { message: message as unknown as MessageRow, resolution };
}

export async function readMessageRow(id: string): Promise<MessageWithResolution | null> {
  const joined = await selectMessageRow(id);
  return joined ? fromJoined(joined) : null;
}

type Waiting = Array<{ ok: (row: MessageWithResolution | null) => void; fail: (err: unknown) => void }>;

/**
 * The same row, read together with every other id asked for in this turn of the event loop: one
 * statement for all the long-polls a burst of NOTIFYs wakes (the listener hands a burst over in one
 * turn), instead of one each. Only for woken waiters (lib/messages/waiters.ts): the read starts after
 * the wake, so it sees the commit that woke it.
 */
export function readMessageRowBatched(id: string): Promise<MessageWithResolution | null> {
  const batch = processWide("ma2h.row-read-batch", () => ({ due: null as Map<string, Waiting> | null }));
  return new Promise((ok, fail) => {
    if (!batch.due) {
      const due = new Map<string, Waiting>();
      batch.due = due;
      setImmediate(() => {
        batch.due = null;
        void readBatch(due);
      });
    }
    const waiting = batch.due.get(id) ?? [];
    waiting.push({ ok, fail });
    batch.due.set(id, waiting);
  });
}

async function readBatch(due: Map<string, Waiting>): Promise<void> {
  try {
    const rows = new Map((await selectMessageRows([...due.keys()])).map((r) => [r.id, r]));
    for (const [id, waiting] of due) {
      const joined = rows.get(id);
      for (const w of waiting) w.ok(joined ? fromJoined(joined) : null); // each caller its own copy
    }
  } catch (err) {
    for (const waiting of due.values()) for (const w of waiting) w.fail(err);
  }
}

function fromJoined(joined: JoinedMessageRow): MessageWithResolution {
  const { message, resolution } = messageAndResolutionOf(joined);
  const mailbox: MailboxTrackRow | null =
    joined.e_state === null
      ? null
      : {
          state: joined.e_state,
          deliveredAt: joined.e_deliveredAt,
          acknowledgedAt: joined.e_acknowledgedAt,
          prior: joined.e_prior,
        };
  return { ...message, resolution, mailbox };
}

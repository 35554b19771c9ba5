/**
 * The author's side of a directive (§14.2 track; `GET /v1/directives/{id}` and the inbox). Any seat
 * in the directive's account may read it, viewers included; anyone else gets the unknown-id 404.
 */
import { clock } from "../clock";
import { db } from "../db";
import { seatFor } from "../principals/seats";
import { HubError } from "@ma2h/protocol/errors";
import { dropDueDirectives } from "./expiry";
import { directiveBody, LIVE_STATES, type MailboxRow } from "./record";

const include = { agent: { select: { agentId: true } } } as const;

function notFound(): HubError {
  return new HubError("not_found", "no such directive");
}

async function load(id: string): Promise<MailboxRow | null> {
  const row = await db().mailboxEntry.findUnique({ where: { id }, include });
  // Nobody reads a live directive past its drop time: end it now, as the sweep would.
  if (row && (LIVE_STATES as readonly string[]).includes(row.state) && row.dropAt.getTime() <= clock.now().getTime()) {
    await dropDueDirectives(clock.now(), id);
    return db().mailboxEntry.findUnique({ where: { id }, include });
  }
  return row;
}

export async function readDirective(userId: string, id: string) {
  const row = await load(id);
  if (!row) throw notFound();
  if (!(await seatFor(userId, row.accountId))) throw notFound();
  return directiveBody(row);
}

/** Directives of one account, newest first, optionally to one agent (the inbox pages). */
export async function listDirectives(accountId: string, options: { agentRowId?: string; take?: number } = {}) {
  const rows = await db().mailboxEntry.findMany({
    where: { accountId, kind: "directive", ...(options.agentRowId ? { agentRowId: options.agentRowId } : {}) },
    include,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: options.take ?? 100,
  });
  return rows.map(directiveBody);
}

/**
 * The "Agent traffic" view (/inbox/traffic): addressed messages between one account's agents
 * (`to: agent:<id>` or `agent:<id>#<sess_…>`, §4, §8.7.1). They default out of the triage inbox
 * (lib/inbox/conditions.sql.ts `TRIAGE_ONLY`) but "MUST remain readable/auditable by the account's
 * authenticated human" (§8.7.1 "Human visibility", the §15.3 posture): every seat reads them,
 * viewers included. Each row carries both §14.2 tracks — the mailbox track of its `message` entry
 * (queued → delivered → acknowledged, or bounced with its `prior` / expired) and, for an ask/task,
 * the §7 status with its resolution and the response track (lib/messages/delivery-track.ts).
 *
 * Reads only. Newest first, keyset-paged per account through `messages_traffic_idx` (partial on
 * `to_address IS NOT NULL`) in a LATERAL, merged, like the inbox's list (./traffic.sql.ts).
 * Never selects `state`, the envelope or the entry's content: the row shows the title only; the
 * body and context are read on the item page, through the sanitizing renderer.
 */
import { z } from "zod";
import { db } from "../db";
import { deliveryTrack } from "../messages/delivery-track";
import { mailboxTrack, type MailboxTrackRow } from "../messages/mailbox-track";
import { seatsOf, type AccountSeat } from "../principals/seats";
import { mayOperate } from "../sessions/stop";
import { MAILBOX_STATES } from "@ma2h/protocol/lifecycle";
import { member, one, type Params, STATUSES, VERBS } from "./filters";
import { readTrafficPage, type TrafficRawRow } from "./traffic.sql";

export const TRAFFIC_PAGE_SIZE = 50;

/** §14.2 the mailbox track of a `message` entry. */
/** The §14.2 mailbox track's states: the protocol's one list. */
export { MAILBOX_STATES };
export type MailboxState = (typeof MAILBOX_STATES)[number];
/** §7 statuses an addressed ask/task can have: the inbox's statuses but `delivered` (a human-inbox notify's). */
export type ResolutionStatus = Exclude<(typeof STATUSES)[number], "delivered">;
export const RESOLUTION_STATUSES: readonly ResolutionStatus[] = STATUSES.filter(
  (s): s is ResolutionStatus => s !== "delivered",
);

export interface TrafficFilters {
  /** An account slug; absent = every account the person has a seat in. */
  account?: string;
  /** A wire `agent.id`, matching the sender or the destination. */
  agent?: string;
  verb?: (typeof VERBS)[number];
  /** The mailbox track's state (§14.2). */
  mailbox?: MailboxState;
  /** The §7 status of an ask/task (notifies never match). */
  status?: ResolutionStatus;
  /** Created at or after this instant (ISO 8601, as typed; see `parseInstant`). */
  from?: string;
  /** Created before this instant; a bare date means the end of that day (UTC). */
  to?: string;
}

const FILTER_KEYS = ["account", "agent", "verb", "mailbox", "status", "from", "to"] as const;

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/u;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?$/u;

/**
 * A time-range bound as typed: `YYYY-MM-DD` or an ISO date-time (`<input type="datetime-local">`
 * sends one without a zone). Without a zone it is UTC — the server does not know the browser's
 * zone, and the page says so. A bare date as the upper bound includes that whole day. Anything
 * else is null (the filter is dropped, as for every unreadable parameter).
 */
export function parseInstant(s: string | undefined, end: "from" | "to"): Date | null {
  if (s === undefined) return null;
  let iso: string;
  if (DATE_ONLY.test(s)) iso = `${s}T00:00:00Z`;
  else if (DATE_TIME.test(s)) iso = /Z|[+-]\d{2}:\d{2}$/u.test(s.slice(10)) ? s : `${s}Z`;
  else return null;
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return null;
  if (end === "to" && DATE_ONLY.test(s)) at.setUTCDate(at.getUTCDate() + 1);
  return at;
}

/** The filters from URL search parameters; anything unrecognised is dropped, never an error. */
export function parseTrafficFilters(params: Params): TrafficFilters {
  const out: TrafficFilters = {
    account: one(params, "account"),
    agent: one(params, "agent"),
    verb: member(VERBS, one(params, "verb")),
    mailbox: member(MAILBOX_STATES, one(params, "mailbox")),
    status: member(RESOLUTION_STATUSES, one(params, "status")),
    from: parseInstant(one(params, "from"), "from") ? one(params, "from") : undefined,
    to: parseInstant(one(params, "to"), "to") ? one(params, "to") : undefined,
  };
  for (const k of FILTER_KEYS) if (out[k] === undefined) delete out[k];
  return out;
}

/** Keyset position: the last row of a page (newest first; ids ascending within one instant). */
const cursorSchema = z.object({ c: z.iso.datetime(), i: z.string().min(1).max(64) });
type Cursor = z.infer<typeof cursorSchema>;

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c), "utf8").toString("base64url");
}

function decodeCursor(after: string | null | undefined): Cursor | null {
  if (!after) return null;
  try {
    const parsed = cursorSchema.safeParse(JSON.parse(Buffer.from(after, "base64url").toString("utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export interface TrafficEndpoint {
  /** The wire `agent.id` (null only when the destination agent was deleted and its address unreadable). */
  agentId: string | null;
  /** The sender: the Hub-attested `from` (`agent:<id>` or `agent:<id>#<sess>`); the destination: `to` as sent. */
  address: string;
  /** The session named by that address, if any. */
  session: string | null;
}

export interface MailboxTrackView {
  state: string;
  /** §14.2 `session`-addressed entry's session, or null (principal-addressed: first claim wins). */
  toSession: string | null;
  deliveredAt: string | null;
  acknowledgedAt: string | null;
  /** §14.2 `prior` on `bounced`: `queued` (never seen) or `delivered` (seen, then orphaned). */
  prior: string | null;
  endedAt: string | null;
}

export interface TrafficResolutionView {
  /** The §7 status (`open` until a terminal wins). */
  status: string;
  /** The attested resolver (`agent:B`, `agent:B#sess_…`, `system:undeliverable`, `human:<handle>`). */
  actor: string | null;
  resolvedAt: string | null;
  /** §14.2 the response track: whether the answer reached the asking agent, and its ack. */
  response: "not-delivered" | "delivered-to-agent" | "acknowledged" | null;
  deliveredAt: string | null;
  acknowledgedAt: string | null;
}

export interface TrafficRow {
  id: string;
  account: string;
  type: "notify" | "ask" | "task";
  title: string;
  priority: string;
  createdAt: string;
  expiresAt: string | null;
  from: TrafficEndpoint;
  to: TrafficEndpoint;
  /** Null when the entry is gone (retention) or was never written. */
  mailbox: MailboxTrackView | null;
  /** Asks and tasks only. */
  resolution: TrafficResolutionView | null;
}

/** An agent that appears on the page, with what the operator's stop control needs (§16.4.1). */
export interface TrafficAgent {
  account: string;
  agentId: string;
  stopped: { by: string; at: string } | null;
  /** Owners and admins (`mayOperate`, the rule `stopAgent` enforces): the view draws Stop / Resume. */
  canStop: boolean;
}

export interface TrafficPage {
  rows: TrafficRow[];
  next: string | null;
  seats: AccountSeat[];
  /** Every agent id of the accounts in scope, for the agent filter. */
  agentIds: string[];
  /** The agents on this page (either side), each once per account. */
  agents: TrafficAgent[];
}

/** `agent:<id>` or `agent:<id>#<sess>` → its parts (null agent id for anything else). */
export function splitAddress(address: string): { agentId: string | null; session: string | null } {
  if (!address.startsWith("agent:")) return { agentId: null, session: null };
  const rest = address.slice("agent:".length);
  const hash = rest.indexOf("#");
  return hash < 0 ? { agentId: rest, session: null } : { agentId: rest.slice(0, hash), session: rest.slice(hash + 1) };
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

/**
 * The entry's §14.2 track as the sender's §8.2 `mailbox` object has it (lib/messages/mailbox-track.ts:
 * one derivation, so the page and the wire never disagree — e.g. no delivered time on `expired` or
 * on a bounce with `prior: queued`), plus what only people see: the addressed session and the end.
 */
function trackView(row: MailboxTrackRow, toSession: string | null, endedAt: Date | null): MailboxTrackView {
  const t = mailboxTrack(row);
  return {
    state: t.state,
    toSession,
    deliveredAt: t.delivered_at ?? null,
    acknowledgedAt: t.acknowledged_at ?? null,
    prior: t.prior ?? null,
    endedAt: iso(endedAt),
  };
}

function rowOf(r: TrafficRawRow, slug: string): TrafficRow {
  const type = r.type as TrafficRow["type"];
  // The attested `from` the destination received (§8.7) is the entry's; before (or without) one,
  // the same attestation from the submit's own columns: the sender, qualified by `agent.session`.
  const fromAddress = r.mb_from_actor ?? `agent:${r.from_agent_id}${r.submit_session ? `#${r.submit_session}` : ""}`;
  const to = splitAddress(r.to_address);
  let resolution: TrafficResolutionView | null = null;
  if (type !== "notify") {
    const track =
      r.res_id === null
        ? undefined
        : deliveryTrack(r.id, r.ma2h_version, {
            id: r.res_id,
            deliveredToAgentAt: r.res_delivered_at,
            ackedAt: r.res_acked_at,
            ackBy: r.res_ack_by,
            ackNote: r.res_ack_note,
            ackResolutionId: r.res_ack_resolution_id,
          });
    resolution = {
      status: r.status,
      actor: r.res_actor,
      resolvedAt: iso(r.res_resolved_at),
      response: r.res_id === null ? null : (track?.state ?? "not-delivered"),
      deliveredAt: track?.delivered_at ?? null,
      acknowledgedAt: track?.acknowledged_at ?? null,
    };
  }
  return {
    id: r.id,
    account: slug,
    type,
    title: r.title,
    priority: r.priority,
    createdAt: r.created_at.toISOString(),
    expiresAt: iso(r.expires_at),
    from: { agentId: r.from_agent_id, address: fromAddress, session: splitAddress(fromAddress).session },
    to: {
      agentId: r.to_agent_id ?? to.agentId,
      address: r.to_address,
      session: r.mb_to_session ?? to.session,
    },
    mailbox:
      r.mb_state === null
        ? null
        : trackView(
            {
              state: r.mb_state,
              deliveredAt: r.mb_delivered_at,
              acknowledgedAt: r.mb_acknowledged_at,
              prior: r.mb_prior,
            },
            r.mb_to_session,
            r.mb_ended_at,
          ),
    resolution,
  };
}

/**
 * The person's view of their accounts' agent traffic: every seat reads (§8.7.1), a person without
 * one sees nothing. `filters.account` narrows to one of their accounts (none when it is not theirs).
 */
export async function listTraffic(
  userId: string,
  filters: TrafficFilters,
  page: { after?: string | null; limit?: number } = {},
): Promise<TrafficPage> {
  const seats = await seatsOf(userId);
  const scope = filters.account === undefined ? seats : seats.filter((s) => s.slug === filters.account);
  if (scope.length === 0) return { rows: [], next: null, seats, agentIds: [], agents: [] };
  const limit = Math.min(Math.max(page.limit ?? TRAFFIC_PAGE_SIZE, 1), 200);
  const ids = scope.map((s) => s.accountId);
  const [raw, agentRows] = await Promise.all([
    readTrafficPage(
      ids,
      { ...filters, from: parseInstant(filters.from, "from"), to: parseInstant(filters.to, "to") },
      decodeCursor(page.after),
      limit + 1,
    ),
    db().agent.findMany({ where: { accountId: { in: ids } }, select: { agentId: true }, orderBy: { agentId: "asc" } }),
  ]);
  const seatOf = new Map(scope.map((s) => [s.accountId, s]));
  const pageRows = raw.slice(0, limit);
  const last = pageRows[pageRows.length - 1];
  return {
    rows: pageRows.map((r) => rowOf(r, seatOf.get(r.account_id)?.slug ?? r.account_id)),
    next: raw.length > limit && last ? encodeCursor({ c: last.created_at.toISOString(), i: last.id }) : null,
    seats,
    agentIds: [...new Set(agentRows.map((a) => a.agentId))],
    agents: await agentsOnPage(pageRows, seatOf),
  };
}

/** Each agent of the page once (sender or destination), with its stop record (§16.4.1). */
async function agentsOnPage(rows: TrafficRawRow[], seatOf: Map<string, AccountSeat>): Promise<TrafficAgent[]> {
  const byRow = new Map<string, { accountId: string; agentId: string }>();
  for (const r of rows) {
    byRow.set(r.agent_row_id, { accountId: r.account_id, agentId: r.from_agent_id });
    if (r.to_agent_row_id && r.to_agent_id)
      byRow.set(r.to_agent_row_id, { accountId: r.account_id, agentId: r.to_agent_id });
  }
  const stops = new Map(
    (
      await db().agentStop.findMany({
        where: { agentRowId: { in: [...byRow.keys()] } },
        select: { agentRowId: true, stoppedBy: true, stoppedAt: true },
      })
    ).map((s) => [s.agentRowId, s]),
  );
  return [...byRow.entries()]
    .flatMap(([rowId, a]) => {
      const seat = seatOf.get(a.accountId);
      if (!seat) return [];
      const stop = stops.get(rowId);
      return [
        {
          account: seat.slug,
          agentId: a.agentId,
          stopped: stop ? { by: stop.stoppedBy, at: stop.stoppedAt.toISOString() } : null,
          canStop: mayOperate(seat),
        },
      ];
    })
    .sort((x, y) => x.account.localeCompare(y.account) || x.agentId.localeCompare(y.agentId));
}

/**
 * An addressed message's entry as its item page shows it (the caller already decided the person may
 * see the message: itemForHuman): the attested `from` the destination received (§8.7) and the
 * mailbox track. Null for a message that is not addressed, or whose entry is gone.
 */
export async function addressedEntryFor(messageId: string): Promise<{ from: string; track: MailboxTrackView } | null> {
  const e = await db().mailboxEntry.findUnique({
    where: { id: messageId },
    select: {
      kind: true,
      fromActor: true,
      state: true,
      toSession: true,
      deliveredAt: true,
      acknowledgedAt: true,
      prior: true,
      endedAt: true,
    },
  });
  if (e?.kind !== "message") return null;
  return { from: e.fromActor, track: trackView(e, e.toSession, e.endedAt) };
}

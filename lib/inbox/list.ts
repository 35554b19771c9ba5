/**
 * The inbox list: every message in the accounts the person has a seat in (or one of them), open
 * items first by priority then age (oldest first: it has waited longest), then everything else
 * newest first. Keyset-paged: each account's rows come from its own index range (./list.sql.ts), so a
 * page costs one index range scan per seat however many items are open (docs/PERFORMANCE.md, "Inbox").
 * Never selects `state`; rows carry only what the list shows and the keyboard acts on. Addressed
 * (agent↔agent) messages are not listed (§8.7.1, `TRIAGE_ONLY`): they are on /inbox/traffic.
 */
import { readApprovalsOf } from "../approvals/state";
import { routingOf } from "../policies/routing";
import { db } from "../db";
import { effectiveOptions } from "@ma2h/protocol/rules";
import { envelopeOf } from "../messages/record";
import { affordancesFor } from "./affordances";
import { type ApprovalsView, approvalsView } from "./view";
import { facetCounts, type FacetCounts } from "./counts";
import { decodeCursor, encodeCursor, type Cursor, type InboxFilters } from "./filters";
import { type InboxRawRow, readOpenPage, readRestPage } from "./list.sql";
import { seatsOf, type AccountSeat } from "../principals/seats";
import type { ListOption } from "./similar";

export const PAGE_SIZE = 50;

export interface InboxRow {
  id: string;
  account: string;
  type: "notify" | "ask" | "task";
  status: string;
  title: string;
  priority: string;
  agentId: string;
  project: string | null;
  tags: string[];
  createdAt: string;
  expiresAt: string | null;
  mode: "select" | "input" | "confirm" | null;
  /** The value `a` answers with from the list (confirm: approve; select: the first option). */
  quickValue: string | null;
  /** A confirm or select ask's options, value and label, in order (null otherwise): what groups it (./similar.ts). */
  options: ListOption[] | null;
  canAnswer: boolean;
  canDecline: boolean;
  canComplete: boolean;
  /** Why this person may not resolve it (role, allowed_resolvers, state), or null. */
  refusal: string | null;
  /** The approvals so far of an ask a quorum rule routed, once it has a vote (null otherwise). */
  approvals: ApprovalsView | null;
}

export interface InboxPage {
  rows: InboxRow[];
  /** Cursor of the next page, or null on the last one. */
  next: string | null;
  /** Matching items in total (all pages). */
  total: number;
  counts: FacetCounts;
  seats: AccountSeat[];
}

function cursorOf(r: InboxRawRow): Cursor {
  return r.status === "open"
    ? { g: 0, r: r.priority_rank, c: r.created_at.toISOString(), i: r.id }
    : { g: 1, c: r.created_at.toISOString(), i: r.id };
}

/** The accounts in scope: every seat, or the one selected (none when it is not theirs). */
export function scopeOf(seats: AccountSeat[], filters: InboxFilters): AccountSeat[] {
  return filters.account === undefined ? seats : seats.filter((s) => s.slug === filters.account);
}

export async function listInbox(
  userId: string,
  filters: InboxFilters,
  page: { after?: string | null; limit?: number } = {},
): Promise<InboxPage> {
  const seats = await seatsOf(userId);
  const scope = scopeOf(seats, filters);
  const limit = Math.min(Math.max(page.limit ?? PAGE_SIZE, 1), 200);
  if (scope.length === 0) return { rows: [], next: null, total: 0, counts: await facetCounts(seats, filters), seats };

  const ids = scope.map((s) => s.accountId);
  const after = decodeCursor(page.after);
  const wantOpen = filters.status === undefined || filters.status === "open";
  const wantRest = filters.status !== "open";
  const [counts, raw] = await Promise.all([
    facetCounts(seats, filters),
    (async () => {
      const rows =
        wantOpen && (after === null || after.g === 0) ? await readOpenPage(ids, filters, after, limit + 1) : [];
      if (wantRest && rows.length <= limit) {
        rows.push(...(await readRestPage(ids, filters, after?.g === 1 ? after : null, limit + 1 - rows.length)));
      }
      return rows;
    })(),
  ]);
  const pageRows = raw.slice(0, limit);
  const last = pageRows[pageRows.length - 1];
  return {
    rows: await withActions(pageRows, scope),
    next: raw.length > limit && last ? encodeCursor(cursorOf(last)) : null,
    total: counts.total,
    counts,
    seats,
  };
}

/**
 * Adds what the keyboard needs (mode, quick value, affordances) from the page's envelopes only, and
 * the approval line of each quorum ask with votes — read for the page's ids at once, never per row.
 */
async function withActions(rows: InboxRawRow[], scope: AccountSeat[]): Promise<InboxRow[]> {
  const stored = await db().message.findMany({
    where: { id: { in: rows.map((r) => r.id) } },
    select: { id: true, accountId: true, agentRowId: true, envelope: true, routing: true },
  });
  const envelopes = new Map(stored.map((m) => [m.id, { envelope: envelopeOf(m), routing: routingOf(m) }]));
  const approvals = await readApprovalsOf(stored);
  const seatOf = new Map(scope.map((s) => [s.accountId, s]));
  return rows.flatMap((r) => {
    const stored = envelopes.get(r.id);
    const seat = seatOf.get(r.account_id);
    if (!stored || !seat) return [];
    const { envelope } = stored;
    const can = affordancesFor(seat, envelope, r.status, stored.routing);
    const state = approvals.get(r.id);
    const voted = state !== undefined && state.votes.length > 0 ? state : null;
    const request = envelope.type === "ask" ? envelope.request : null;
    const options =
      request && request.mode !== "input"
        ? effectiveOptions(request).map((o) => ({ value: o.value, label: o.label }))
        : null;
    const first = options?.[0]?.value ?? null;
    return [
      {
        id: r.id,
        account: seat.slug,
        type: envelope.type,
        status: r.status,
        title: r.title,
        priority: r.priority,
        agentId: r.agent_id,
        project: r.project,
        tags: r.tags ?? [],
        createdAt: r.created_at.toISOString(),
        expiresAt: r.expires_at?.toISOString() ?? null,
        mode: request?.mode ?? null,
        quickValue: first,
        options,
        canAnswer: can.answer,
        canDecline: can.decline || can.dismiss,
        canComplete: can.complete,
        refusal: can.refusal,
        approvals: voted && approvalsView(voted),
      },
    ];
  });
}

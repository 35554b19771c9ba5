/**
 * The statements behind lib/inbox/counts.ts. All six column facets come from ONE scan of the
 * person's rows (grouped at the finest grain, one FILTERed count per facet) that reads
 * `messages_inbox_facets_idx` only; tags, which need an unnest, from a second. The title search is
 * no facet, so it narrows both scans directly. Addressed messages count nowhere here (§8.7.1,
 * `TRIAGE_ONLY`); the facets index is partial on that predicate, so it stays index-only.
 */
import { db } from "../db";
import { Prisma } from "../generated/prisma/client";
import type { AccountSeat } from "../principals/seats";
import { statement } from "../sql-statement";
import { FILTER_SAMPLES, filterConditions, TRIAGE_ONLY, whereAnd } from "./conditions.sql";
import type { FilterKey, InboxFilters } from "./filters";

export const TAG_LIMIT = 40;
export const FACETS = ["account", "verb", "status", "priority", "agent", "project"] as const;
export type Facet = (typeof FACETS)[number];
const COLUMN: Record<Facet, Prisma.Sql> = {
  account: Prisma.sql`m.account_id`,
  verb: Prisma.sql`m.type`,
  status: Prisma.sql`m.status`,
  priority: Prisma.sql`m.priority_rank::text`, // ranks, named by the caller: the facets index holds the rank
  agent: Prisma.sql`m.agent_row_id`,
  project: Prisma.sql`m.project`,
};

/** The person's seats as the counts need them: each account's row id and slug. */
export type SeatRef = Pick<AccountSeat, "accountId" | "slug">;

const ids = (seats: readonly SeatRef[]) => seats.map((s) => s.accountId);

/** The facet's own condition set: every filter but its own; the account facet spans every seat. */
function facetCondition(seats: readonly SeatRef[], filters: InboxFilters, facet: FilterKey): Prisma.Sql {
  const conds = filterConditions({ ...filters, q: undefined }, facet);
  if (facet !== "account" && filters.account !== undefined) {
    conds.push(Prisma.sql`m.account_id = ANY(${ids(seats.filter((s) => s.slug === filters.account))}::text[])`);
  }
  return conds.length === 0 ? Prisma.sql`TRUE` : Prisma.join(conds, " AND ");
}

function searchOnly(filters: InboxFilters): Prisma.Sql {
  return whereAnd(filters.q === undefined ? [] : filterConditions({ q: filters.q }));
}

const SEATS: SeatRef[] = [
  { accountId: "acc_a", slug: "a" },
  { accountId: "acc_b", slug: "b" },
];

export type GroupRow = Record<Facet, string | null> & Record<`n_${Facet}`, number>;

/**
 * One pass at the finest grain (a few hundred groups at most), each group counted once per facet
 * under that facet's conditions; the caller rolls them up per facet.
 */
export const columnFacetGroups = statement(
  "inbox facet counts: the column facets in one grouped scan",
  (seats: readonly SeatRef[], filters: InboxFilters) => {
    const counts = FACETS.map(
      (f) => Prisma.sql`count(*) FILTER (WHERE ${facetCondition(seats, filters, f)})::int AS ${Prisma.raw(`n_${f}`)}`,
    );
    return Prisma.sql`
    SELECT ${Prisma.join(FACETS.map((f) => Prisma.sql`${COLUMN[f]} AS ${Prisma.raw(f)}`))}, ${Prisma.join(counts)}
    FROM messages m
    WHERE m.account_id = ANY(${ids(seats)}::text[]) AND ${TRIAGE_ONLY} ${searchOnly(filters)}
    GROUP BY ${Prisma.join(FACETS.map((f) => COLUMN[f]))}`;
  },
  FILTER_SAMPLES.map((f): [readonly SeatRef[], InboxFilters] => [SEATS, f]),
);

export async function readColumnFacetGroups(seats: readonly SeatRef[], filters: InboxFilters): Promise<GroupRow[]> {
  return db().$queryRaw<GroupRow[]>(columnFacetGroups.sql(seats, filters));
}

export const tagFacet = statement(
  "inbox facet counts: the most frequent tags",
  (seats: readonly SeatRef[], filters: InboxFilters) => Prisma.sql`
    SELECT t AS k, count(*)::int AS n FROM messages m CROSS JOIN LATERAL unnest(m.tags) AS t
    WHERE m.account_id = ANY(${ids(seats)}::text[]) AND ${TRIAGE_ONLY} ${searchOnly(filters)} AND ${facetCondition(seats, filters, "tag")}
    GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ${TAG_LIMIT}`,
  FILTER_SAMPLES.map((f): [readonly SeatRef[], InboxFilters] => [SEATS, f]),
);

export async function readTagFacet(
  seats: readonly SeatRef[],
  filters: InboxFilters,
): Promise<Array<{ k: string; n: number }>> {
  return db().$queryRaw<Array<{ k: string; n: number }>>(tagFacet.sql(seats, filters));
}

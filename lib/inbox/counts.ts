/**
 * Counts per filter option, faceted: each facet counts the items matching every *other* filter, so
 * a badge says how many items choosing that option would show. All six column facets come from ONE
 * scan of the person's rows (grouped at the finest grain, one FILTERed count per facet, rolled up
 * here) that reads `messages_inbox_facets_idx` only; tags, which need an unnest, from a second.
 * The title search is no facet, so it narrows both scans directly. Addressed messages count nowhere
 * here (§8.7.1, `TRIAGE_ONLY`); the facets index is partial on that predicate, so it stays index-only.
 */
import { db } from "../db";
import { PRIORITIES, type InboxFilters } from "./filters";
import type { AccountSeat } from "../principals/seats";
import { type Facet, FACETS, readColumnFacetGroups, readTagFacet } from "./counts.sql";

export interface FacetCounts {
  /** Items matching every filter. */
  total: number;
  account: Record<string, number>;
  verb: Record<string, number>;
  status: Record<string, number>;
  priority: Record<string, number>;
  agent: Record<string, number>;
  project: Record<string, number>;
  /** The most frequent tags, most frequent first. */
  tag: Array<[string, number]>;
}

async function columnFacets(
  seats: AccountSeat[],
  filters: InboxFilters,
): Promise<Record<Facet, Record<string, number>>> {
  // Rolled up per facet from the finest-grain groups (./counts.sql.ts).
  const rows = await readColumnFacetGroups(seats, filters);
  const out = Object.fromEntries(FACETS.map((f) => [f, {} as Record<string, number>])) as Record<
    Facet,
    Record<string, number>
  >;
  for (const row of rows) {
    for (const f of FACETS) {
      const key = row[f];
      const n = row[`n_${f}`];
      if (key !== null && n > 0) out[f][key] = (out[f][key] ?? 0) + n;
    }
  }
  return out;
}

async function tagFacet(seats: AccountSeat[], filters: InboxFilters): Promise<Array<[string, number]>> {
  return (await readTagFacet(seats, filters)).map((r) => [r.k, r.n]);
}

export async function facetCounts(seats: AccountSeat[], filters: InboxFilters): Promise<FacetCounts> {
  if (seats.length === 0)
    return { total: 0, account: {}, verb: {}, status: {}, priority: {}, agent: {}, project: {}, tag: [] };
  const [c, tag] = await Promise.all([columnFacets(seats, filters), tagFacet(seats, filters)]);
  // Row ids → slugs and wire agent ids (the same agent.id in two accounts counts once, summed).
  const slugOf = new Map(seats.map((s) => [s.accountId, s.slug]));
  const account: Record<string, number> = {};
  for (const [id, n] of Object.entries(c.account)) account[slugOf.get(id) ?? id] = n;
  const agents = await db().agent.findMany({
    where: { id: { in: Object.keys(c.agent) } },
    select: { id: true, agentId: true },
  });
  const agent: Record<string, number> = {};
  for (const a of agents) agent[a.agentId] = (agent[a.agentId] ?? 0) + (c.agent[a.id] ?? 0);
  const priority: Record<string, number> = {};
  for (const [rank, n] of Object.entries(c.priority)) priority[PRIORITIES[Number(rank)] ?? rank] = n;
  // The status facet ignores only the status filter: its selected bucket (or its sum) is the total.
  const total =
    filters.status !== undefined ? (c.status[filters.status] ?? 0) : Object.values(c.status).reduce((a, b) => a + b, 0);
  return {
    total,
    account: seats.length > 1 ? account : {},
    verb: c.verb,
    status: c.status,
    priority,
    agent,
    project: c.project,
    tag,
  };
}

/**
 * Counts per filter option, faceted: each facet counts the items matching every *other* filter, so
 * a badge says how many items choosing that option would show. One grouped query per facet, run in
 * parallel, each over the person's accounts only.
 */
import { Prisma } from "../generated/prisma/client";
import { db } from "../db";
import type { FilterKey, InboxFilters } from "./filters";
import type { InboxSeat } from "./seats";
import { filterConditions, whereAnd } from "./sql";

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

const TAG_LIMIT = 40;

const KEY: Record<Exclude<FilterKey, "q" | "tag">, Prisma.Sql> = {
  account: Prisma.sql`m.account_id`,
  verb: Prisma.sql`m.type`,
  status: Prisma.sql`m.status`,
  priority: Prisma.sql`m.priority`,
  agent: Prisma.sql`(SELECT ag.agent_id FROM agents ag WHERE ag.id = m.agent_row_id)`,
  project: Prisma.sql`m.project`,
};

type Pair = { k: string | null; n: number };

function scopeSql(seats: InboxSeat[], filters: InboxFilters, facet: FilterKey): Prisma.Sql {
  // The account facet counts across every seat; the others within the selected account.
  const ids = seats.filter((s) => facet === "account" || filters.account === undefined || s.slug === filters.account).map((s) => s.accountId);
  return Prisma.sql`m.account_id = ANY(${ids}::text[])`;
}

async function grouped(seats: InboxSeat[], filters: InboxFilters, facet: keyof typeof KEY): Promise<Record<string, number>> {
  const rows = await db().$queryRaw<Pair[]>`
    SELECT ${KEY[facet]} AS k, count(*)::int AS n FROM messages m
    WHERE ${scopeSql(seats, filters, facet)} ${whereAnd(filterConditions(filters, facet))}
    GROUP BY 1`;
  const out: Record<string, number> = {};
  for (const r of rows) if (r.k !== null) out[r.k] = r.n;
  return out;
}

async function tags(seats: InboxSeat[], filters: InboxFilters): Promise<Array<[string, number]>> {
  const rows = await db().$queryRaw<Pair[]>`
    SELECT t AS k, count(*)::int AS n FROM messages m CROSS JOIN LATERAL unnest(m.tags) AS t
    WHERE ${scopeSql(seats, filters, "tag")} ${whereAnd(filterConditions(filters, "tag"))}
    GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ${TAG_LIMIT}`;
  return rows.flatMap((r) => (r.k === null ? [] : [[r.k, r.n] as [string, number]]));
}

export async function facetCounts(seats: InboxSeat[], filters: InboxFilters): Promise<FacetCounts> {
  if (seats.length === 0) return { total: 0, account: {}, verb: {}, status: {}, priority: {}, agent: {}, project: {}, tag: [] };
  const [account, verb, status, priority, agent, project, tag] = await Promise.all([
    seats.length > 1 ? grouped(seats, filters, "account") : Promise.resolve<Record<string, number>>({}),
    grouped(seats, filters, "verb"),
    grouped(seats, filters, "status"),
    grouped(seats, filters, "priority"),
    grouped(seats, filters, "agent"),
    grouped(seats, filters, "project"),
    tags(seats, filters),
  ]);
  const bySlug: Record<string, number> = {};
  for (const s of seats) if (account[s.accountId] !== undefined) bySlug[s.slug] = account[s.accountId] as number;
  // The status facet ignores only the status filter: its selected bucket (or its sum) is the total.
  const total = filters.status !== undefined ? (status[filters.status] ?? 0) : Object.values(status).reduce((a, b) => a + b, 0);
  return { total, account: bySlug, verb, status, priority, agent, project, tag };
}

/**
 * The inbox filters as SQL conditions on `messages m` (parameterised; never string-built): fragments
 * of the statements in ./counts.sql.ts and ./list.sql.ts, planned there with a sample per filter.
 */
import { Prisma } from "../generated/prisma/client";
import { PRIORITY_RANK } from "../messages/listing";
import { likePattern, type FilterKey, type InboxFilters } from "./filters";

/** Every filter but the account scope (applied per query) and `except` (for that facet's counts). */
export function filterConditions(f: InboxFilters, except?: FilterKey): Prisma.Sql[] {
  const on = (k: FilterKey) => f[k] !== undefined && k !== except;
  const c: Prisma.Sql[] = [];
  if (on("verb")) c.push(Prisma.sql`m.type = ${f.verb}`);
  if (on("status")) c.push(Prisma.sql`m.status = ${f.status}`);
  if (on("priority") && f.priority) c.push(Prisma.sql`m.priority_rank = ${PRIORITY_RANK[f.priority]}::smallint`);
  if (on("agent")) c.push(Prisma.sql`m.agent_row_id IN (SELECT ag.id FROM agents ag WHERE ag.agent_id = ${f.agent})`);
  if (on("project")) c.push(Prisma.sql`m.project = ${f.project}`);
  if (on("tag")) c.push(Prisma.sql`m.tags @> ARRAY[${f.tag}]::text[]`);
  if (on("q") && f.q) c.push(Prisma.sql`m.title ILIKE ${likePattern(f.q)}`);
  return c;
}

/**
 * §8.7.1 "Human visibility": addressed (agent↔agent) messages default out of the triage inbox — they
 * are fleet traffic, not human work. Every list, facet and count of the inbox carries this; the
 * traffic view (lib/inbox/traffic.ts) is where people read them, and the item page still opens them.
 */
export const TRIAGE_ONLY = Prisma.sql`m.to_address IS NULL`;

/** ` AND c1 AND c2 …`, or nothing. */
export function whereAnd(conds: Prisma.Sql[]): Prisma.Sql {
  return conds.length === 0 ? Prisma.empty : Prisma.sql` AND ${Prisma.join(conds, " AND ")}`;
}

/** The filter shapes the statements built on these conditions are planned with: none, each alone, all. */
export const FILTER_SAMPLES: readonly InboxFilters[] = [
  {},
  { account: "a" },
  { verb: "ask" },
  { status: "open" },
  { priority: "high" },
  { agent: "sample/agent" },
  { project: "sample" },
  { tag: "sample" },
  { q: "sample" },
  {
    account: "a",
    verb: "task",
    status: "open",
    priority: "urgent",
    agent: "sample/agent",
    project: "p",
    tag: "t",
    q: "x",
  },
];

/**
 * The statement behind lib/inbox/traffic.ts: one page of an account's agent traffic, reads only.
 * Never selects `state`, the envelope or the entry's content: the row shows the title only.
 */
import { db } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";
import { whereAnd } from "./conditions.sql";

export interface TrafficRawRow {
  id: string;
  account_id: string;
  type: string;
  status: string;
  title: string;
  priority: string;
  created_at: Date;
  expires_at: Date | null;
  ma2h_version: string;
  to_address: string;
  submit_session: string | null;
  agent_row_id: string;
  to_agent_row_id: string | null;
  from_agent_id: string;
  to_agent_id: string | null;
  mb_state: string | null;
  mb_to_session: string | null;
  mb_from_actor: string | null;
  mb_delivered_at: Date | null;
  mb_acknowledged_at: Date | null;
  mb_prior: string | null;
  mb_ended_at: Date | null;
  res_id: string | null;
  res_resolution: string | null;
  res_actor: string | null;
  res_resolved_at: Date | null;
  res_delivered_at: Date | null;
  res_acked_at: Date | null;
  res_ack_by: string | null;
  res_ack_note: string | null;
  res_ack_resolution_id: string | null;
}

/** The filters as the statement takes them (lib/inbox/traffic.ts `TrafficFilters`), the time range read as instants. */
export interface TrafficConditions {
  verb?: string;
  /** The §7 status of an ask/task (notifies never match). */
  status?: string;
  /** The mailbox track's state (§14.2). */
  mailbox?: string;
  /** A wire `agent.id`, matching the sender or the destination. */
  agent?: string;
  from: Date | null;
  to: Date | null;
}

/** Keyset position: the last row of a page (newest first; ids ascending within one instant). */
export interface TrafficCursor {
  c: string;
  i: string;
}

/** The filters as SQL conditions on `messages m` inside one account's LATERAL (`a.id`). */
function trafficConditions(f: TrafficConditions): Prisma.Sql[] {
  const c: Prisma.Sql[] = [];
  if (f.verb) c.push(Prisma.sql`m.type = ${f.verb}`);
  if (f.status) c.push(Prisma.sql`m.type <> 'notify' AND m.status = ${f.status}`);
  if (f.mailbox)
    c.push(Prisma.sql`EXISTS (SELECT 1 FROM mailbox_entries e WHERE e.id = m.id AND e.state = ${f.mailbox})`);
  if (f.agent) {
    const rows = Prisma.sql`SELECT ag.id FROM agents ag WHERE ag.account_id = a.id AND ag.agent_id = ${f.agent}`;
    c.push(Prisma.sql`(m.agent_row_id IN (${rows}) OR m.to_agent_row_id IN (${rows}))`);
  }
  if (f.from) c.push(Prisma.sql`m.created_at >= ${f.from}::timestamptz`);
  if (f.to) c.push(Prisma.sql`m.created_at < ${f.to}::timestamptz`);
  return c;
}

const NONE: TrafficConditions = { from: null, to: null };
const CONDITION_SAMPLES: TrafficConditions[] = [
  NONE,
  { ...NONE, verb: "ask" },
  { ...NONE, status: "answered" },
  { ...NONE, mailbox: "delivered" },
  { ...NONE, agent: "sample/agent" },
  { from: new Date(0), to: null },
  { from: null, to: new Date(0) },
  { verb: "task", status: "open", mailbox: "bounced", agent: "sample/agent", from: new Date(0), to: new Date(1) },
];

/**
 * One page: each account's newest addressed messages from `messages_traffic_idx`, merged; joined by
 * primary key to the message's own `message` entry (it shares the `msg_` id) and its resolution.
 */
export const trafficPage = statement(
  "agent traffic page: addressed messages newest first, with their entry and resolution",
  (accountIds: string[], conditions: TrafficConditions, after: TrafficCursor | null, n: number) => {
    // The index is (account_id, created_at DESC, id): newest first, ids ascending within one instant.
    // `created_at <= c` bounds the index range; the rest drops what the last page already showed.
    const keyset = after
      ? [
          Prisma.sql`m.created_at <= ${after.c}::timestamptz`,
          Prisma.sql`(m.created_at < ${after.c}::timestamptz OR m.id > ${after.i})`,
        ]
      : [];
    return Prisma.sql`
    SELECT x.*, s.agent_id AS from_agent_id, d.agent_id AS to_agent_id,
           e.state AS mb_state, e.to_session AS mb_to_session, e.from_actor AS mb_from_actor,
           e.delivered_at AS mb_delivered_at, e.acknowledged_at AS mb_acknowledged_at, e.prior AS mb_prior,
           e.ended_at AS mb_ended_at,
           r.id AS res_id, r.resolution AS res_resolution, r.actor AS res_actor, r.resolved_at AS res_resolved_at,
           r.delivered_to_agent_at AS res_delivered_at, r.acked_at AS res_acked_at, r.ack_by AS res_ack_by,
           r.ack_note AS res_ack_note, r.ack_resolution_id AS res_ack_resolution_id
    FROM unnest(${accountIds}::text[]) AS a(id)
    CROSS JOIN LATERAL (
      SELECT m.id, m.account_id, m.type, m.status, m.title, m.priority, m.created_at, m.expires_at, m.ma2h_version,
             m.to_address, m.submit_session, m.agent_row_id, m.to_agent_row_id
      FROM messages m
      WHERE m.account_id = a.id AND m.to_address IS NOT NULL ${whereAnd([...trafficConditions(conditions), ...keyset])}
      ORDER BY m.created_at DESC, m.id LIMIT ${n}
    ) x
    JOIN agents s ON s.id = x.agent_row_id
    LEFT JOIN agents d ON d.id = x.to_agent_row_id
    LEFT JOIN mailbox_entries e ON e.id = x.id
    LEFT JOIN resolutions r ON r.message_id = x.id
    ORDER BY x.created_at DESC, x.id LIMIT ${n}`;
  },
  [
    ...CONDITION_SAMPLES.map((c): [string[], TrafficConditions, TrafficCursor | null, number] => [
      ["acc_a", "acc_b"],
      c,
      null,
      51,
    ]),
    [["acc_a"], NONE, { c: new Date(0).toISOString(), i: "msg_sample" }, 51],
  ],
);

export async function readTrafficPage(
  accountIds: string[],
  conditions: TrafficConditions,
  after: TrafficCursor | null,
  n: number,
): Promise<TrafficRawRow[]> {
  return db().$queryRaw<TrafficRawRow[]>(trafficPage.sql(accountIds, conditions, after, n));
}

/**
 * The statements behind lib/insights/insights.ts. Every one starts from the account's asks created
 * in the window, read from `messages_insights_idx` alone (account_id, created_at and the columns
 * they group by; partial on the human inbox's asks: addressed messages count nowhere, §8.7.1); a
 * person's own view can start from their answers instead (`resolutions (actor, resolved_at)`). Each
 * ask's resolution is reached by `resolutions.message_id` (unique) or a hash join, its first view by
 * the `item_views` primary key. docs/PERFORMANCE.md "Insights" has the plans on 1,000,000 messages.
 *
 * An answer is a resolution by a person (`human:<handle>`) or by a standing rule (`system:rule/…`):
 * expiries, defaults, cancellations and retention are not answers.
 */
import { db } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";

/** The window's asks of one account: the human inbox's, by creation time. */
const asksIn = (accountId: string, from: Date, to: Date) => Prisma.sql`
  m.account_id = ${accountId} AND m.created_at >= ${from} AND m.created_at < ${to}
  AND m.type = 'ask' AND m.to_address IS NULL`;

/**
 * An answer, and (implied, as an answer never precedes its ask) given since `from`: the bound lets a
 * person's own view start from `resolutions (actor, resolved_at)`.
 */
const answeredSince = (from: Date) =>
  Prisma.sql`(r.actor LIKE 'human:%' OR r.actor LIKE 'system:rule/%') AND r.resolved_at >= ${from}`;
/** Only this actor's answers (a person's own view), or everyone's. */
const onlyActor = (actor: string | null) => (actor === null ? Prisma.empty : Prisma.sql`AND r.actor = ${actor}`);

/** An answer this soon after the item was first shown to the person is "quick" (rubber stamp). */
export const QUICK_MS = 3000;
/** More than this many answers by one person within `BURST_SECONDS` (inclusive) is a burst. */
export const BURST_SIZE = 20;
export const BURST_SECONDS = 300;

const FROM = new Date("2026-11-01T00:00:00Z");
const TO = new Date("2026-12-01T00:00:00Z");
const SAMPLES: Array<[string, Date, Date, string | null]> = [
  ["acc_sample", FROM, TO, null],
  ["acc_sample", FROM, TO, "human:sample"],
];

export interface AnswerTimeRow {
  dim: "person" | "agent" | "project" | "priority" | "all";
  key: string;
  n: number;
  by_rule: number;
  p50: number;
  p90: number;
}

/**
 * Time to answer (resolved_at − created_at, in seconds) as p50/p90 — `percentile_disc`, so each is
 * an observed time — in one pass: per answering actor, per agent, per project, per priority and
 * overall (grouping sets), each with how many of its answers a standing rule gave.
 */
export const answerTimes = statement(
  "insights: time to answer p50/p90 by person, agent, project and priority and overall",
  (accountId: string, from: Date, to: Date, actor: string | null) => Prisma.sql`
    WITH a AS (
      SELECT r.actor, m.agent_row_id AS agent, coalesce(m.project, '') AS project, m.priority,
             extract(epoch FROM r.resolved_at - m.created_at)::float8 AS secs
      FROM messages m
      JOIN resolutions r ON r.message_id = m.id
      WHERE ${asksIn(accountId, from, to)} AND ${answeredSince(from)} ${onlyActor(actor)}
    ), g AS (
      SELECT CASE WHEN GROUPING(actor) = 0 THEN 'person' WHEN GROUPING(agent) = 0 THEN 'agent'
                  WHEN GROUPING(project) = 0 THEN 'project' WHEN GROUPING(priority) = 0 THEN 'priority'
                  ELSE 'all' END AS dim,
             coalesce(actor, agent, project, priority, '') AS key,
             count(*)::int AS n,
             count(*) FILTER (WHERE actor LIKE 'system:rule/%')::int AS by_rule,
             percentile_disc(0.5) WITHIN GROUP (ORDER BY secs) AS p50,
             percentile_disc(0.9) WITHIN GROUP (ORDER BY secs) AS p90
      FROM a
      GROUP BY GROUPING SETS ((actor), (agent), (project), (priority), ())
    )
    SELECT g.dim, CASE WHEN g.dim = 'agent' THEN ag.agent_id ELSE g.key END AS key, g.n, g.by_rule, g.p50, g.p90
    FROM g LEFT JOIN agents ag ON g.dim = 'agent' AND ag.id = g.key`,
  SAMPLES,
);

export function readAnswerTimes(accountId: string, from: Date, to: Date, actor: string | null) {
  return db().$queryRaw<AnswerTimeRow[]>(answerTimes.sql(accountId, from, to, actor));
}

/** The window's asks that expired unanswered (`status = 'expired'`, with or without a default), per agent. */
export const expiredByAgent = statement(
  "insights: asks expired unanswered, per agent",
  (accountId: string, from: Date, to: Date) => Prisma.sql`
    WITH e AS (
      SELECT m.agent_row_id, count(*)::int AS n FROM messages m
      WHERE ${asksIn(accountId, from, to)} AND m.status = 'expired'
      GROUP BY m.agent_row_id
    )
    SELECT ag.agent_id AS agent, e.n FROM e JOIN agents ag ON ag.id = e.agent_row_id
    ORDER BY e.n DESC, agent`,
  [["acc_sample", FROM, TO]],
);

export function readExpiredByAgent(accountId: string, from: Date, to: Date) {
  return db().$queryRaw<Array<{ agent: string; n: number }>>(expiredByAgent.sql(accountId, from, to));
}

/**
 * Asks per UTC weekday (ISO: 1 Monday … 7 Sunday) and hour, by creation time; with an actor, only
 * the asks that actor answered.
 */
export const asksPerHour = statement(
  "insights: asks per UTC weekday and hour",
  (accountId: string, from: Date, to: Date, actor: string | null) => Prisma.sql`
    SELECT extract(isodow FROM m.created_at AT TIME ZONE 'UTC')::int AS dow,
           extract(hour FROM m.created_at AT TIME ZONE 'UTC')::int AS hour,
           count(*)::int AS n
    FROM messages m
    ${actor === null ? Prisma.empty : Prisma.sql`JOIN resolutions r ON r.message_id = m.id AND r.actor = ${actor}`}
    WHERE ${asksIn(accountId, from, to)}
    GROUP BY 1, 2`,
  SAMPLES,
);

export function readAsksPerHour(accountId: string, from: Date, to: Date, actor: string | null) {
  return db().$queryRaw<Array<{ dow: number; hour: number; n: number }>>(asksPerHour.sql(accountId, from, to, actor));
}

export interface RubberStampRow {
  actor: string;
  answers: number;
  /** Answers whose item page the person had been shown first (an item_views row). */
  shown: number;
  /** Answers given less than `QUICK_MS` after the item was first shown to the person. */
  quick: number;
  /** How many times the person's answers in the trailing `BURST_SECONDS` went above `BURST_SIZE`. */
  bursts: number;
}

/**
 * The rubber-stamp signal per person: answers given within `QUICK_MS` of the item's first showing,
 * and bursts — an answer at which the person's answers of the trailing `BURST_SECONDS` (inclusive)
 * first exceed `BURST_SIZE` starts one.
 */
export const rubberStamps = statement(
  "insights: quick answers and answer bursts per person",
  (accountId: string, from: Date, to: Date, actor: string | null) =>
    Prisma.sql`
    WITH a AS (
      SELECT r.actor, r.resolved_at, v.first_shown_at
      FROM messages m
      JOIN resolutions r ON r.message_id = m.id
      LEFT JOIN memberships mb ON mb.account_id = m.account_id AND mb.handle = substr(r.actor, 7)
      LEFT JOIN item_views v ON v.message_id = m.id AND v.membership_id = mb.id
      WHERE ${asksIn(accountId, from, to)} AND r.actor LIKE 'human:%' AND r.resolved_at >= ${from} ${onlyActor(actor)}
    ), w AS (
      SELECT actor, resolved_at, first_shown_at,
             count(*) OVER (PARTITION BY actor ORDER BY resolved_at
                            RANGE BETWEEN make_interval(secs => ${BURST_SECONDS}::float8) PRECEDING AND CURRENT ROW) AS in_window
      FROM a
    ), b AS (
      SELECT *, lag(in_window) OVER (PARTITION BY actor ORDER BY resolved_at) AS prev FROM w
    )
    SELECT actor, count(*)::int AS answers,
           count(first_shown_at)::int AS shown,
           count(*) FILTER (WHERE resolved_at >= first_shown_at
                              AND resolved_at < first_shown_at + make_interval(secs => ${QUICK_MS / 1000}::float8))::int AS quick,
           count(*) FILTER (WHERE in_window > ${BURST_SIZE}::int AND coalesce(prev, 0) <= ${BURST_SIZE}::int)::int AS bursts
    FROM b GROUP BY actor ORDER BY actor`,
  SAMPLES,
);

export function readRubberStamps(accountId: string, from: Date, to: Date, actor: string | null) {
  return db().$queryRaw<RubberStampRow[]>(rubberStamps.sql(accountId, from, to, actor));
}

/**
 * Record that the item was shown to the person's seat in its account, once: the first showing
 * stays (the primary key and ON CONFLICT DO NOTHING), and a person with no seat there writes nothing.
 */
export const recordView = statement(
  "insights: record an item's first showing to a seat",
  (messageId: string, userId: string, accountId: string, at: Date) => Prisma.sql`
    INSERT INTO item_views (message_id, membership_id, first_shown_at)
    SELECT ${messageId}, mb.id, ${at} FROM memberships mb WHERE mb.user_id = ${userId} AND mb.account_id = ${accountId}
    ON CONFLICT DO NOTHING`,
  [["msg_sample", "usr_sample", "acc_sample", FROM]],
);

export async function insertView(messageId: string, userId: string, accountId: string, at: Date): Promise<void> {
  await db().$executeRaw(recordView.sql(messageId, userId, accountId, at));
}

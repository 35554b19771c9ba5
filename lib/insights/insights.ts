/**
 * Insights (docs/inbox.md "Insights"): how fast an account's asks are answered, who answers them,
 * what expires, what standing rules answer, when asks arrive, and the rubber-stamp signal — over
 * the last 7 or 30 days. The account's owners and admins see everyone's; each person sees their own
 * (`personInsights`). The page, the CSV and the JSON are all made from `insightsTables`, so the
 * export says exactly what the page shows.
 */
import { clock } from "../clock";
import { type AccountSeat, adminSeat, seatBySlug, seatsOf } from "../principals/seats";
import {
  insertView,
  readAnswerTimes,
  readAsksPerHour,
  readExpiredByAgent,
  readRubberStamps,
  type AnswerTimeRow,
  QUICK_MS,
} from "./insights.sql";

export { BURST_SECONDS, BURST_SIZE, QUICK_MS } from "./insights.sql";

export const WINDOWS = [7, 30] as const;
export type WindowDays = (typeof WINDOWS)[number];
/** How many agents the expired list names. */
export const TOP_AGENTS = 5;
export const WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] as const;
const PRIORITY_ORDER = ["urgent", "high", "normal", "low"];

/** `?days=7` → 7; anything else the default 30. */
export function parseWindow(v: unknown): WindowDays {
  return v === "7" || v === 7 ? 7 : 30;
}

export interface AnswerStat {
  key: string;
  answers: number;
  p50: number;
  p90: number;
}

export interface RubberStamp {
  person: string;
  answers: number;
  shown: number;
  quick: number;
  bursts: number;
}

export interface Insights {
  scope: "account" | "person";
  account: string;
  /** The person's actor in their own view (`human:<handle>`); null for the account's. */
  actor: string | null;
  days: WindowDays;
  from: Date;
  to: Date;
  overall: AnswerStat | null;
  byPerson: AnswerStat[];
  byAgent: AnswerStat[];
  byProject: AnswerStat[];
  byPriority: AnswerStat[];
  /** The account's view only. */
  expired: { total: number; top: Array<{ agent: string; n: number }> } | null;
  /** The account's view only: answers, how many a standing rule gave, and that share (0–1). */
  rules: { answers: number; byRule: number; share: number } | null;
  /** heat[dow 0 = Monday][hour], UTC. */
  heat: number[][];
  rubberStamps: RubberStamp[];
}

const stat = (r: AnswerTimeRow): AnswerStat => ({ key: r.key, answers: r.n, p50: Number(r.p50), p90: Number(r.p90) });
const byKey = (a: AnswerStat, b: AnswerStat) => a.key.localeCompare(b.key);

async function compute(seat: Pick<AccountSeat, "accountId" | "slug">, days: WindowDays, actor: string | null) {
  const to = clock.now();
  const from = new Date(to.getTime() - days * 86_400_000);
  const [times, expired, hours, stamps] = await Promise.all([
    readAnswerTimes(seat.accountId, from, to, actor),
    actor === null ? readExpiredByAgent(seat.accountId, from, to) : Promise.resolve(null),
    readAsksPerHour(seat.accountId, from, to, actor),
    readRubberStamps(seat.accountId, from, to, actor),
  ]);
  const dim = (d: AnswerTimeRow["dim"]) => times.filter((r) => r.dim === d).map(stat);
  const all = times.find((r) => r.dim === "all" && r.n > 0);
  const heat = WEEKDAYS.map(() => Array.from({ length: 24 }, () => 0));
  for (const h of hours) {
    const row = heat[h.dow - 1];
    if (row) row[h.hour] = h.n;
  }
  const insights: Insights = {
    scope: actor === null ? "account" : "person",
    account: seat.slug,
    actor,
    days,
    from,
    to,
    overall: all ? { ...stat(all), key: "all" } : null,
    byPerson: dim("person")
      .filter((s) => s.key.startsWith("human:"))
      .sort(byKey),
    byAgent: dim("agent").sort(byKey),
    byProject: dim("project")
      .map((s) => ({ ...s, key: s.key === "" ? "(none)" : s.key }))
      .sort(byKey),
    byPriority: dim("priority").sort((a, b) => PRIORITY_ORDER.indexOf(a.key) - PRIORITY_ORDER.indexOf(b.key)),
    expired: expired ? { total: expired.reduce((n, r) => n + r.n, 0), top: expired.slice(0, TOP_AGENTS) } : null,
    rules:
      actor === null
        ? {
            answers: all?.n ?? 0,
            byRule: all?.by_rule ?? 0,
            share: all && all.n > 0 ? all.by_rule / all.n : 0,
          }
        : null,
    heat,
    rubberStamps: stamps.map((r) => ({
      person: r.actor,
      answers: r.answers,
      shown: r.shown,
      quick: r.quick,
      bursts: r.bursts,
    })),
  };
  return insights;
}

/** Everyone's numbers in the account: for its owners and admins (the caller checked `adminSeat`). */
export function accountInsights(seat: Pick<AccountSeat, "accountId" | "slug">, days: WindowDays): Promise<Insights> {
  return compute(seat, days, null);
}

/** Only the person's own answers in one account they sit in. */
export function personInsights(seat: AccountSeat, days: WindowDays): Promise<Insights> {
  return compute(seat, days, `human:${seat.handle}`);
}

/** The person's seat for their own view: `?account=<slug>`, else their first account (by slug). */
export async function ownSeat(userId: string, slug: string | undefined): Promise<AccountSeat | null> {
  if (slug) return seatBySlug(userId, slug);
  return (await seatsOf(userId))[0] ?? null;
}

/**
 * Record that the person was shown the item (its page rendered for them), once per seat: the
 * rubber-stamp signal measures answers from this moment. One INSERT, no read.
 */
export function recordItemShown(userId: string, accountId: string, messageId: string): Promise<void> {
  return insertView(messageId, userId, accountId, clock.now());
}

// ─── The tables: what the page shows, the CSV and the JSON ───────────────────────────────────────

export interface InsightsTable {
  id: string;
  title: string;
  /** The first column names the row; the others are the numbers. */
  columns: string[];
  rows: string[][];
}

/** Seconds to one decimal, as the page, the CSV and the JSON all print them. */
export const seconds = (s: number) => s.toFixed(1);
const percent = (x: number) => (x * 100).toFixed(1);

function timeTable(id: string, title: string, first: string, stats: AnswerStat[]): InsightsTable {
  return {
    id,
    title,
    columns: [first, "answers", "p50 (s)", "p90 (s)"],
    rows: stats.map((s) => [s.key, String(s.answers), seconds(s.p50), seconds(s.p90)]),
  };
}

export function insightsTables(ins: Insights): InsightsTable[] {
  const tables: InsightsTable[] = [
    timeTable("answer-time", "Time to answer, overall", "scope", ins.overall ? [ins.overall] : []),
  ];
  if (ins.scope === "account") tables.push(timeTable("by-person", "Time to answer by person", "person", ins.byPerson));
  tables.push(
    timeTable("by-agent", "Time to answer by agent", "agent", ins.byAgent),
    timeTable("by-project", "Time to answer by project", "project", ins.byProject),
    timeTable("by-priority", "Time to answer by priority", "priority", ins.byPriority),
  );
  if (ins.expired) {
    tables.push({
      id: "expired",
      title: `Asks expired unanswered (top ${TOP_AGENTS} agents)`,
      columns: ["agent", "expired"],
      rows: [["all agents", String(ins.expired.total)], ...ins.expired.top.map((r) => [r.agent, String(r.n)])],
    });
  }
  if (ins.rules) {
    tables.push({
      id: "rules",
      title: "Answered by standing rules",
      columns: ["scope", "answers", "by rules", "share (%)"],
      rows: [["all", String(ins.rules.answers), String(ins.rules.byRule), percent(ins.rules.share)]],
    });
  }
  tables.push(
    {
      id: "heatmap",
      title: ins.scope === "account" ? "Asks per hour (UTC)" : "Asks you answered, per hour they arrived (UTC)",
      columns: ["weekday", ...Array.from({ length: 24 }, (_, h) => String(h).padStart(2, "0"))],
      rows: ins.heat.map((row, d) => [WEEKDAYS[d] ?? String(d), ...row.map(String)]),
    },
    {
      id: "rubber-stamp",
      title: "Rubber-stamp signal",
      columns: ["person", "answers", "shown first", `under ${QUICK_MS / 1000} s`, "bursts"],
      rows: ins.rubberStamps.map((r) => [
        r.person,
        String(r.answers),
        String(r.shown),
        String(r.quick),
        String(r.bursts),
      ]),
    },
  );
  return tables;
}

const csvCell = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/**
 * The tables as one CSV in long form, a line per number the page shows:
 * `table,key,metric,value` (key: the row's first cell; metric: the column's heading).
 */
export function insightsCsv(ins: Insights): string {
  const lines = [["table", "key", "metric", "value"]];
  for (const t of insightsTables(ins)) {
    for (const row of t.rows) {
      for (let c = 1; c < t.columns.length; c++) lines.push([t.id, row[0] ?? "", t.columns[c] ?? "", row[c] ?? ""]);
    }
  }
  return `${lines.map((l) => l.map(csvCell).join(",")).join("\r\n")}\r\n`;
}

export function insightsJson(ins: Insights) {
  return {
    scope: ins.scope,
    account: ins.account,
    actor: ins.actor,
    days: ins.days,
    from: ins.from.toISOString(),
    to: ins.to.toISOString(),
    timezone: "UTC",
    tables: insightsTables(ins),
  };
}

/**
 * The export route's whole answer, for a signed-in person (or null): `scope: "account"` needs an
 * owner/admin seat in `slug`; `"person"` any seat of the person (`slug` or their first). Anyone
 * else gets the same 404 as an unknown page.
 */
export async function insightsExport(
  userId: string | null,
  scope: "account" | "person",
  slug: string | undefined,
  query: URLSearchParams,
): Promise<Response> {
  const notFound = () => new Response("Not found\n", { status: 404, headers: { "content-type": "text/plain" } });
  if (!userId) return notFound();
  const days = parseWindow(query.get("days"));
  let ins: Insights;
  if (scope === "account") {
    const seat = slug ? await adminSeat(userId, slug) : null;
    if (!seat) return notFound();
    ins = await accountInsights(seat, days);
  } else {
    const seat = await ownSeat(userId, slug);
    if (!seat) return notFound();
    ins = await personInsights(seat, days);
  }
  const json = query.get("format") === "json";
  const name = `insights-${ins.account}${scope === "person" ? `-${ins.actor?.slice(6)}` : ""}-${days}d.${json ? "json" : "csv"}`;
  return new Response(json ? `${JSON.stringify(insightsJson(ins), null, 2)}\n` : insightsCsv(ins), {
    headers: {
      "content-type": json ? "application/json; charset=utf-8" : "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${name}"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
}

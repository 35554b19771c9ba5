/**
 * Insights (docs/inbox.md "Insights") over a dataset with known answers, made through the lib verbs
 * with the clock pinned: time to answer p50/p90 per person, agent, project and priority and
 * overall, in both windows; asks expired unanswered and their top agents; the standing rules'
 * share; the UTC heat map; the rubber-stamp signal (2 s after first shown counts, 4 s does not; 21
 * answers in 5 minutes is a burst, 20 is not); the first showing recorded once by the item page's
 * loader; the CSV equal to the page's tables; who may see which view and export.
 */
// covers: lib/insights/, components/Insights.tsx, lib/inbox/item.ts
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InsightsView } from "../components/Insights";
import { fixedClock, setClock } from "../lib/clock";
import { db } from "../lib/db";
import { itemForHuman } from "../lib/inbox/item";
import {
  accountInsights,
  type Insights,
  insightsCsv,
  insightsExport,
  insightsTables,
  ownSeat,
  personInsights,
  recordItemShown,
} from "../lib/insights/insights";
import { expireMessage } from "../lib/messages/expiry";
import { resolveMessage } from "../lib/messages/resolve";
import { submitMessage } from "../lib/messages/submit";
import { authenticate, requireAgent } from "../lib/principals/authenticate";
import type { AgentPrincipal } from "../lib/principals/types";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";

const fx = useHubFixture({
  server: "none",
  accounts: {
    acme: {
      agents: ["bot-a", "bot-b"],
      humans: [
        { handle: "olga", role: "owner" },
        { handle: "adam", role: "admin" },
        { handle: "bob", role: "member" },
        { handle: "carl", role: "member" },
      ],
    },
    initech: {
      agents: ["stamp-bot"],
      humans: [
        { handle: "ivy", role: "owner" },
        { handle: "dan", role: "member" },
        { handle: "eve", role: "member" },
        { handle: "finn", role: "member" },
      ],
    },
    globex: { agents: ["gbot"], humans: [{ handle: "gina", role: "owner" }] },
  },
});

/** "Now" for every read: Monday 2026-12-07 12:00 UTC. */
const NOW = new Date("2026-12-07T12:00:00.000Z");
const clockAt = fixedClock(NOW);
const ids: Record<string, string> = {};
const principals: Record<string, AgentPrincipal> = {};
const users: Record<string, string> = {};
const accounts: Record<string, string> = {};

async function ask(
  slug: string,
  agent: string,
  at: string,
  opts: { project?: string; priority?: string; type?: "ask" | "task"; expiresIn?: number; defaulted?: boolean } = {},
): Promise<string> {
  clockAt.set(new Date(at));
  const body = envelope(opts.type ?? "ask", agent, {
    created_at: new Date(at).toISOString(),
    agent: { id: agent, run_id: "run_1", runtime: "cli", ...(opts.project ? { project: opts.project } : {}) },
    ...(opts.priority ? { priority: opts.priority } : {}),
    ...(opts.expiresIn ? { expires_at: new Date(Date.parse(at) + opts.expiresIn).toISOString() } : {}),
  });
  if (opts.defaulted) (body.request as Record<string, unknown>).default_on_expire = "hold";
  const principal = principals[`${slug}/${agent}`];
  if (!principal) throw new Error(`no agent ${slug}/${agent}`);
  return (await submitMessage(principal, body)).ack.id;
}

async function answer(slug: string, handle: string, id: string, afterSeconds: number, type: "ask" | "task" = "ask") {
  const row = await db().message.findUniqueOrThrow({ where: { id } });
  clockAt.set(new Date(row.createdAt.getTime() + afterSeconds * 1000));
  const userId = users[`${slug}/${handle}`] ?? "";
  await resolveMessage(
    { kind: "human", userId },
    id,
    type === "ask" ? { resolution: "answered", value: "ship" } : { resolution: "completed" },
  );
}

/** A standing rule's answer (the rules themselves are built elsewhere; only the actor counts here). */
async function ruleAnswer(id: string, afterSeconds: number) {
  const row = await db().message.findUniqueOrThrow({ where: { id } });
  const at = new Date(row.createdAt.getTime() + afterSeconds * 1000);
  await db().$transaction([
    db().message.update({ where: { id }, data: { status: "answered", statusChangedAt: at, terminalAt: at } }),
    db().resolution.create({
      data: {
        id: `res_rule_${id}`,
        messageId: id,
        resolution: "answered",
        actor: "system:rule/rule_x",
        resolvedAt: at,
      },
    }),
  ]);
}

beforeAll(async () => {
  setClock(clockAt);
  for (const slug of ["acme", "initech", "globex"]) {
    const acc = fx.account(slug);
    accounts[slug] = (await db().account.findUniqueOrThrow({ where: { slug } })).id;
    for (const [agentId, key] of Object.entries(acc.keys)) {
      principals[`${slug}/${agentId}`] = requireAgent(
        await authenticate(new Headers({ authorization: `Bearer ${key}` })),
      );
    }
    for (const m of await db().membership.findMany({ where: { accountId: accounts[slug] } }))
      users[`${slug}/${m.handle}`] = m.userId;
  }

  // acme — bob answers five bot-a asks (project alpha, high) on Thursday 2026-12-03 09:0x UTC in
  // 10, 20, 30, 40 and 50 s; carl two bot-b asks (no project, normal) on Tuesday 2026-11-17 14:xx
  // in 100 and 200 s (inside 30 days, outside 7); a standing rule one bot-a alpha urgent ask on
  // Saturday 2026-12-05 23:30 in 5 s.
  for (const [i, secs] of [10, 20, 30, 40, 50].entries()) {
    const id = await ask("acme", "bot-a", `2026-12-03T09:0${i}:00Z`, { project: "alpha", priority: "high" });
    await answer("acme", "bob", id, secs);
  }
  for (const [i, secs] of [100, 200].entries()) {
    const id = await ask("acme", "bot-b", `2026-11-17T14:${i}0:00Z`);
    await answer("acme", "carl", id, secs);
  }
  await ruleAnswer(await ask("acme", "bot-a", "2026-12-05T23:30:00Z", { project: "alpha", priority: "urgent" }), 5);
  // Expired unanswered on Saturday 08:00: three of bot-b, one of bot-a with a default applied; one
  // of bot-b 40 days ago (outside both windows).
  const expiring: string[] = [];
  for (const agent of ["bot-b", "bot-b", "bot-b"])
    expiring.push(await ask("acme", agent, "2026-12-05T08:00:00Z", { expiresIn: 60_000 }));
  expiring.push(await ask("acme", "bot-a", "2026-12-05T08:00:00Z", { expiresIn: 60_000, defaulted: true }));
  expiring.push(await ask("acme", "bot-b", "2026-10-28T08:00:00Z", { expiresIn: 60_000 }));
  for (const id of expiring) {
    const row = await db().message.findUniqueOrThrow({ where: { id } });
    clockAt.set(new Date(row.createdAt.getTime() + 61_000));
    expect(await expireMessage(id)).toBe(true);
  }
  // Still open, Monday 00:00; a task bob completes in 1 s (tasks are not asks: counted nowhere).
  ids.open = await ask("acme", "bot-a", "2026-12-07T00:00:00Z");
  await answer("acme", "bob", await ask("acme", "bot-a", "2026-12-03T09:00:00Z", { type: "task" }), 1, "task");
  // globex: gina answers in 1 s on Thursday 09:00 — another account, counted nowhere in acme.
  await answer("globex", "gina", await ask("globex", "gbot", "2026-12-03T09:00:00Z"), 1);

  // initech — dan: shown at T, answered at T+2 s (quick); shown at T, answered at T+4 s (not),
  // though ivy was shown that one 1 s before dan's answer; one answered with no showing.
  const T = Date.parse("2026-12-04T10:00:00Z");
  const shown = async (handle: string, id: string, at: number) => {
    clockAt.set(new Date(at));
    await recordItemShown(users[`initech/${handle}`] ?? "", accounts.initech ?? "", id);
  };
  const d1 = await ask("initech", "stamp-bot", new Date(T - 60_000).toISOString());
  const d2 = await ask("initech", "stamp-bot", new Date(T - 60_000).toISOString());
  const d3 = await ask("initech", "stamp-bot", new Date(T - 60_000).toISOString());
  await shown("dan", d1, T);
  await shown("dan", d2, T);
  await shown("ivy", d2, T + 3_000);
  await answer("initech", "dan", d1, 62);
  await answer("initech", "dan", d2, 64);
  await answer("initech", "dan", d3, 90);
  // eve answers 21 asks 10 s apart (200 s: one burst); finn 20 (none).
  for (const [handle, n] of [
    ["eve", 21],
    ["finn", 20],
  ] as const) {
    const start = Date.parse(handle === "eve" ? "2026-12-04T12:00:00Z" : "2026-12-04T15:00:00Z");
    for (let i = 0; i < n; i++) {
      const id = await ask("initech", "stamp-bot", new Date(start + i * 10_000 - 30_000).toISOString());
      await answer("initech", handle, id, 30);
    }
  }
  clockAt.set(NOW);
});
afterAll(() => setClock(null));

const acme = () => ({ accountId: accounts.acme ?? "", slug: "acme" });
const initech = () => ({ accountId: accounts.initech ?? "", slug: "initech" });
const stat = (key: string, answers: number, p50: number, p90: number) => ({ key, answers, p50, p90 });

describe("the account's numbers", () => {
  it("time to answer p50/p90 over 30 days: overall, by person, agent, project and priority", async () => {
    const ins = await accountInsights(acme(), 30);
    // all answers: 5 10 20 30 40 50 100 200 — p50 the 4th, p90 the 8th (percentile_disc)
    expect(ins.overall).toEqual(stat("all", 8, 30, 200));
    expect(ins.byPerson).toEqual([stat("human:bob", 5, 30, 50), stat("human:carl", 2, 100, 200)]);
    expect(ins.byAgent).toEqual([stat("bot-a", 6, 20, 50), stat("bot-b", 2, 100, 200)]);
    expect(ins.byProject).toEqual([stat("(none)", 2, 100, 200), stat("alpha", 6, 20, 50)]);
    expect(ins.byPriority).toEqual([stat("urgent", 1, 5, 5), stat("high", 5, 30, 50), stat("normal", 2, 100, 200)]);
  });

  it("over 7 days carl's asks of 2026-11-17 drop out", async () => {
    const ins = await accountInsights(acme(), 7);
    expect(ins.overall).toEqual(stat("all", 6, 20, 50));
    expect(ins.byPerson).toEqual([stat("human:bob", 5, 30, 50)]);
    expect(ins.byAgent).toEqual([stat("bot-a", 6, 20, 50)]);
    expect(ins.rules).toEqual({ answers: 6, byRule: 1, share: 1 / 6 });
  });

  it("asks expired unanswered: the count in the window and its top agents", async () => {
    expect((await accountInsights(acme(), 30)).expired).toEqual({
      total: 4,
      top: [
        { agent: "bot-b", n: 3 },
        { agent: "bot-a", n: 1 },
      ],
    });
    expect((await accountInsights(initech(), 30)).expired).toEqual({ total: 0, top: [] });
  });

  it("the share answered by standing rules (actor system:rule/…)", async () => {
    expect((await accountInsights(acme(), 30)).rules).toEqual({ answers: 8, byRule: 1, share: 0.125 });
    const rules = insightsTables(await accountInsights(acme(), 30)).find((t) => t.id === "rules");
    expect(rules?.rows).toEqual([["all", "8", "1", "12.5"]]);
  });

  it("asks per UTC weekday and hour, every ask of the window (answered, expired or open)", async () => {
    const heat = (await accountInsights(acme(), 30)).heat;
    const cells = heat.flatMap((row, d) => row.flatMap((n, h) => (n ? [`${d + 1}/${h}=${n}`] : [])));
    // Mon 00 open; Tue 14 carl's two; Thu 09 bob's five; Sat 08 the four expired; Sat 23 the rule's.
    expect(cells).toEqual(["1/0=1", "2/14=2", "4/9=5", "6/8=4", "6/23=1"]);
    const week = (await accountInsights(acme(), 7)).heat;
    expect(week[1]?.[14]).toBe(0);
    expect(week[3]?.[9]).toBe(5);
  });

  it("rubber stamp: 2 s after first shown counts, 4 s does not; 21 answers in 5 minutes is a burst, 20 is not", async () => {
    expect((await accountInsights(initech(), 30)).rubberStamps).toEqual([
      { person: "human:dan", answers: 3, shown: 2, quick: 1, bursts: 0 },
      { person: "human:eve", answers: 21, shown: 0, quick: 0, bursts: 1 },
      { person: "human:finn", answers: 20, shown: 0, quick: 0, bursts: 0 },
    ]);
  });
});

describe("first showing", () => {
  it("the item page's loader records it once; answers and bulk loads do not", async () => {
    const olga = users["acme/olga"] ?? "";
    const views = () => db().itemView.findMany({ where: { messageId: ids.open } });
    clockAt.set(new Date("2026-12-07T12:00:00Z"));
    await itemForHuman(olga, ids.open ?? "");
    expect(await views()).toEqual([]);
    await itemForHuman(olga, ids.open ?? "", { shown: true });
    clockAt.set(new Date("2026-12-07T12:05:00Z"));
    await itemForHuman(olga, ids.open ?? "", { shown: true });
    expect((await views()).map((v) => v.firstShownAt.toISOString())).toEqual(["2026-12-07T12:00:00.000Z"]);
    // someone with no seat in acme sees nothing and records nothing
    expect(await itemForHuman(users["globex/gina"] ?? "", ids.open ?? "", { shown: true })).toBeNull();
    expect(await views()).toHaveLength(1);
    clockAt.set(NOW);
  });
});

/** The page's tables as rendered: one `table,key,metric,value` line per number cell. */
function renderedCells(ins: Insights): string[] {
  const html = renderToStaticMarkup(
    createElement(InsightsView, {
      tables: insightsTables(ins),
      days: ins.days,
      base: "/x?",
      exportBase: "/x/export?",
      windowLabel: "",
    }),
  );
  const out: string[] = [];
  for (const t of html.matchAll(/<table[^>]*data-testid="insights-([a-z-]+)"[^>]*>([\s\S]*?)<\/table>/g)) {
    const heads = [...(t[2] ?? "").matchAll(/<th scope="col">([^<]*)<\/th>/g)].map((m) => m[1]);
    for (const tr of (t[2] ?? "").matchAll(/<tr><th scope="row">([^<]*)<\/th>([\s\S]*?)<\/tr>/g)) {
      const cells = [...(tr[2] ?? "").matchAll(/<td>([^<]*)<\/td>/g)].map((m) => m[1]);
      for (const [i, v] of cells.entries()) out.push([t[1], tr[1], heads[i + 1], v].join(","));
    }
  }
  return out;
}

describe("exports", () => {
  it("the CSV says exactly what the page's tables show, number for number", async () => {
    for (const ins of [await accountInsights(acme(), 30), await accountInsights(initech(), 7)]) {
      const csv = insightsCsv(ins).trimEnd().split("\r\n");
      expect(csv[0]).toBe("table,key,metric,value");
      const page = renderedCells(ins);
      expect(page.length).toBeGreaterThan(7 * 24);
      expect(csv.slice(1)).toEqual(page);
    }
    const csv = insightsCsv(await accountInsights(acme(), 30));
    expect(csv).toContain("by-person,human:bob,p50 (s),30.0\r\n");
    expect(csv).toContain("expired,bot-b,expired,3\r\n");
    expect(csv).toContain("heatmap,Thu,09,5\r\n");
  });

  it("owners and admins get the CSV and JSON; a member, an outsider and the signed-out get 404", async () => {
    const q = (s: string) => new URLSearchParams(s);
    for (const h of ["olga", "adam"]) {
      const res = await insightsExport(users[`acme/${h}`] ?? "", "account", "acme", q("days=30"));
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/csv");
      expect(await res.text()).toBe(insightsCsv(await accountInsights(acme(), 30)));
    }
    const json = await insightsExport(users["acme/olga"] ?? "", "account", "acme", q("days=7&format=json"));
    const body = (await json.json()) as { days: number; tables: Array<{ id: string; rows: string[][] }> };
    expect(body.days).toBe(7);
    expect(body.tables.find((t) => t.id === "answer-time")?.rows).toEqual([["all", "6", "20.0", "50.0"]]);
    for (const user of [users["acme/bob"], users["globex/gina"], null]) {
      const res = await insightsExport(user ?? null, "account", "acme", q("days=30"));
      expect([res.status, await res.text()]).toEqual([404, "Not found\n"]);
    }
    expect((await insightsExport(users["acme/olga"] ?? "", "account", "nope", q(""))).status).toBe(404);
  });
});

describe("a person's own view", () => {
  it("shows only their own answers, and no account-wide figures", async () => {
    const seat = await ownSeat(users["acme/bob"] ?? "", "acme");
    if (!seat) throw new Error("bob has a seat in acme");
    const ins = await personInsights(seat, 30);
    expect(ins.overall).toEqual(stat("all", 5, 30, 50));
    expect(ins.byAgent).toEqual([stat("bot-a", 5, 30, 50)]);
    expect(ins.byPriority).toEqual([stat("high", 5, 30, 50)]);
    expect(ins.expired).toBeNull();
    expect(ins.rules).toBeNull();
    expect(ins.heat.flat().reduce((a, b) => a + b, 0)).toBe(5);
    expect(ins.rubberStamps.map((r) => r.person)).toEqual(["human:bob"]);
    expect(insightsTables(ins).map((t) => t.id)).not.toContain("by-person");
    const csv = await (await insightsExport(users["acme/bob"] ?? "", "person", "acme", new URLSearchParams())).text();
    expect(csv).not.toContain("carl");
    expect(csv).not.toContain("system:rule");
    // no seat in the account asked for: 404
    expect((await insightsExport(users["acme/bob"] ?? "", "person", "globex", new URLSearchParams())).status).toBe(404);
    const dan = await ownSeat(users["initech/dan"] ?? "", undefined);
    expect((await personInsights(dan ?? seat, 30)).rubberStamps).toEqual([
      { person: "human:dan", answers: 3, shown: 2, quick: 1, bursts: 0 },
    ]);
  });
});

/**
 * The §7 compare-and-set under real concurrency (§12 proof obligation): two web processes on one
 * database, ≥ 20 concurrent resolves and cancels per message, 50 times — exactly one terminal
 * transition, one `resolution_id`, one audit event; and resolve versus expiry at the boundary.
 */
// covers: lib/messages/lifecycle.ts, lib/messages/lifecycle.sql.ts, lib/messages/resolve.ts, lib/messages/expiry.ts
import { describe, expect, it } from "vitest";
import { db } from "../lib/db";
import type { Resolver } from "../lib/messages/access";
import { expireMessage } from "../lib/messages/expiry";
import { resolveMessage } from "../lib/messages/resolve";
import type { HubError } from "@ma2h/protocol/errors";
import { client } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";
import { validateOfficial } from "./support/spec";
import { elapse } from "./support/wait";

const A = "deploybot/dev-team";
const B = "overseer/fleet";
/** Two web processes on one database. */
const fx = useHubFixture({
  accounts: { acme: { agents: [A, B], humans: [{ handle: "alice", role: "owner" }] } },
  count: 2,
});
const hubs = fx.webs;
const acme = fx.account("acme");
const TERMINAL_EVENTS = ["message.answered", "message.declined", "message.cancelled", "message.expired"];

const OPTIONS = [
  { value: "ship", label: "Ship" },
  { value: "hold", label: "Hold" },
];
const RESOLVERS = [`agent:${A}`, `agent:${B}`, "human:alice"];

async function submitAsk(over: Record<string, unknown> = {}, request: Record<string, unknown> = {}): Promise<string> {
  const body = envelope("ask", A, {
    ...over,
    request: { mode: "select", options: OPTIONS, allowed_resolvers: RESOLVERS, ...request },
  });
  const res = await client(hubs[0]!.url, acme.keys[A]).post("/v1/messages", body);
  expect(res.status).toBe(202);
  return res.body.id as string;
}

interface Contender {
  label: string;
  /** The status this request asserts if it wins, and the actor the Hub must attest. */
  status: string;
  actor: string;
  comment?: string;
  run(): Promise<{ status: number; body: Record<string, any> }>;
}

function contenders(id: string, n: number, cancelDelayMs: number): Contender[] {
  const out: Contender[] = [];
  for (let i = 0; i < n; i++) {
    const hub = hubs[Math.floor(i / 4) % 2]!.url; // each kind of contender on both processes
    const comment = `c${i}`;
    const resolve = (token: string | undefined, body: Record<string, unknown>) => () =>
      client(hub, token).post(`/v1/messages/${id}/resolve`, { ...body, comment });
    switch (i % 4) {
      case 0:
        out.push({
          label: `A resolve #${i}`,
          status: "answered",
          actor: `agent:${A}`,
          comment,
          run: resolve(acme.keys[A], { resolution: "answered", value: "ship" }),
        });
        break;
      case 1:
        out.push({
          label: `B resolve #${i}`,
          status: "answered",
          actor: `agent:${B}`,
          comment,
          run: resolve(acme.keys[B], { resolution: "answered", value: "hold" }),
        });
        break;
      case 2:
        out.push({
          label: `alice decline #${i}`,
          status: "declined",
          actor: "human:alice",
          comment,
          run: resolve(acme.tokens.alice, { resolution: "declined" }),
        });
        break;
      default:
        out.push({
          label: `A cancel #${i}`,
          status: "cancelled",
          actor: `agent:${A}`,
          run: async () => {
            if (cancelDelayMs > 0)
              await elapse(
                cancelDelayMs,
                "the cancel is staggered behind the resolves: the order of arrival is the input",
              );
            return client(hub, acme.keys[A]).post(`/v1/messages/${id}/cancel`);
          },
        });
    }
  }
  // A different firing order each time, so every kind of contender gets to win.
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The database holds exactly one terminal for `id`: one Resolution row, one terminal audit event. */
async function oneTerminal(id: string) {
  const rows = await db().resolution.findMany({ where: { messageId: id } });
  expect(rows).toHaveLength(1);
  const row = rows[0]!;
  const events = await db().auditEvent.findMany({ where: { messageId: id, event: { in: TERMINAL_EVENTS } } });
  expect(events).toHaveLength(1);
  expect(events[0]!.event).toBe(`message.${row.resolution}`);
  expect((events[0]!.detail as { resolution_id?: string }).resolution_id).toBe(row.id);
  const message = await db().message.findUniqueOrThrow({ where: { id } });
  expect(message.status).toBe(row.resolution);
  return { row, message };
}

describe("§7 CAS across two web processes", () => {
  it("gives exactly one winner among 24 concurrent resolves and cancels, 50 times over", async () => {
    const wins: Record<string, number> = {};
    let spread = 0;
    for (let round = 0; round < 50; round++) {
      const id = await submitAsk();
      // A cancel is cheaper than a resolve and wins most even starts; every other round it sets off
      // a little later, while the resolves are still in flight, so resolves win some races too.
      const field = contenders(id, 24, round % 2 ? 15 : 0);
      const t0 = performance.now();
      const results = await Promise.all(field.map((c) => c.run()));
      spread += performance.now() - t0;

      const { row } = await oneTerminal(id);
      const status = row.resolution;
      const resolveWins = results.flatMap((r, i) => (r.status === 200 && field[i]!.status !== "cancelled" ? [i] : []));
      const cancelOks = results.flatMap((r, i) => (r.status === 200 && field[i]!.status === "cancelled" ? [i] : []));
      if (status === "cancelled") {
        // A cancel won. §8.4: re-cancelling a cancelled ask is the same 200, so every cancel answers
        // 200 — but only one of them wrote (one row, one audit event); no resolve succeeded.
        expect(resolveWins).toEqual([]);
        expect(cancelOks.length).toBe(field.filter((c) => c.status === "cancelled").length);
        for (const i of cancelOks) expect(results[i]!.body).toEqual({ id, status: "cancelled" });
        expect(row.actor).toBe(`agent:${A}`);
        wins.cancel = (wins.cancel ?? 0) + 1;
      } else {
        expect(resolveWins).toHaveLength(1);
        expect(cancelOks).toEqual([]);
        const winner = field[resolveWins[0]!]!;
        const body = results[resolveWins[0]!]!.body;
        expect(body).toEqual({ id, status: winner.status, resolution_id: row.id });
        expect([row.resolution, row.actor, JSON.parse(row.response ?? "{}").comment]).toEqual([
          winner.status,
          winner.actor,
          winner.comment,
        ]);
        const kind = winner.label.split(" #")[0]!;
        wins[kind] = (wins[kind] ?? 0) + 1;
      }
      results.forEach((r, i) => {
        if (r.status === 200) return;
        expect([field[i]!.label, r.status, r.body.error?.code, r.body.id, r.body.status, r.body.resolution]).toEqual([
          field[i]!.label,
          409,
          "already_terminal",
          id,
          status,
          status,
        ]);
      });
      for (const hub of hubs) {
        const got = await client(hub.url, acme.keys[A]).get(`/v1/messages/${id}`);
        expect([got.status, got.body.status, got.body.response.resolution_id, got.body.response.resolution]).toEqual([
          200,
          status,
          row.id,
          status,
        ]);
        expect(validateOfficial("get-message.schema.json", got.body)).toEqual([]);
      }
    }
    console.log(
      `CAS race: 50 rounds × 24 requests over 2 processes; winners ${JSON.stringify(wins)}; mean burst ${(spread / 50).toFixed(0)} ms`,
    );
    expect(Object.keys(wins).length).toBeGreaterThan(1);
  });
});

/** Median round trip of a resolve that loses (409) — the time a resolve takes to reach its CAS. */
async function requestLatency(): Promise<number> {
  const id = await submitAsk();
  await client(hubs[0]!.url, acme.keys[A]).post(`/v1/messages/${id}/cancel`);
  const times: number[] = [];
  for (let i = 0; i < 6; i++) {
    const t0 = performance.now();
    await client(hubs[i % 2]!.url, acme.keys[B]).post(`/v1/messages/${id}/resolve`, {
      resolution: "answered",
      value: "ship",
    });
    times.push(performance.now() - t0);
  }
  return times.sort((x, y) => x - y)[3]!;
}

describe("§7 resolve versus expiry at expires_at", () => {
  it("never ends with two terminals when resolves, expiry and reads meet at the boundary", async () => {
    const outcomes: Record<string, number> = {};
    const hits: Record<string, number> = {};
    const lags: number[] = [];
    const margins: number[] = [];
    const alice: Resolver = {
      kind: "human",
      userId: (await db().user.findUniqueOrThrow({ where: { email: "alice@acme.test" } })).id,
    };
    for (let round = 0; round < 3; round++) {
      // Fire each resolve one request latency early, so it reaches the Hub around its offset.
      const lag = await requestLatency();
      lags.push(lag);
      const base = Date.now() + 1000;
      const at = Array.from({ length: 8 }, (_, i) => new Date(base + i * 300));
      const ids = await Promise.all(
        at.map((t, i) => submitAsk({ expires_at: t.toISOString() }, i % 2 ? { default_on_expire: "hold" } : {})),
      );
      await Promise.all(
        ids.map(async (id, m) => {
          const boundary = at[m]!.getTime();
          const fire = <T>(offset: number, fn: () => Promise<T>): Promise<T> =>
            elapse(
              Math.max(0, boundary + offset - Date.now()),
              "each contender is fired at its offset from expires_at: the instant itself is the input",
            ).then(fn);
          const overHttp = [-60, -20, -10, -5, -2, 0, 2, 5, 10].map((offset, i) =>
            fire(offset - lag, () =>
              client(hubs[i % 2]!.url, i % 3 ? acme.keys[B] : acme.tokens.alice).post(`/v1/messages/${id}/resolve`, {
                resolution: "answered",
                value: "ship",
              }),
            ).then((r) => ({ ...r, offset: `http@${offset}` })),
          );
          // The same verb from this (third) process, on the millisecond: at expires_at it must still win.
          const inProcess = [-1, 0].map((offset) =>
            fire(offset, () => resolveMessage(alice, id, { resolution: "answered", value: "hold" })).then(
              (body) => ({ status: 200, body: body as Record<string, any>, offset: `lib@${offset}` }),
              (err: HubError) => ({
                status: err.status,
                body: err.toBody() as Record<string, any>,
                offset: `lib@${offset}`,
              }),
            ),
          );
          const resolves = [...overHttp, ...inProcess];
          const expiries = [0, 1, 2, 5].map((offset) => fire(offset, () => expireMessage(id)));
          const reads = [1, 4].map((offset, i) =>
            fire(offset, () => client(hubs[i % 2]!.url, acme.keys[A]).get(`/v1/messages/${id}`)),
          );
          const [rs, xs, gs] = await Promise.all([Promise.all(resolves), Promise.all(expiries), Promise.all(reads)]);

          const { row, message } = await oneTerminal(id);
          outcomes[row.resolution] = (outcomes[row.resolution] ?? 0) + 1;
          const resolvedAt = row.resolvedAt.getTime();
          margins.push(resolvedAt - message.expiresAt!.getTime());
          const oks = rs.filter((r) => r.status === 200);
          if (row.resolution === "answered") {
            // The answer was accepted at or before expires_at (§7), and it was the only one.
            expect(resolvedAt).toBeLessThanOrEqual(message.expiresAt!.getTime());
            expect(oks).toHaveLength(1);
            expect(oks[0]!.body.resolution_id).toBe(row.id);
            expect(xs.every((x) => x === false)).toBe(true);
            hits[`answer@${oks[0]!.offset}`] = (hits[`answer@${oks[0]!.offset}`] ?? 0) + 1;
          } else {
            expect(row.resolution).toBe("expired");
            expect(resolvedAt).toBeGreaterThan(message.expiresAt!.getTime());
            expect(oks).toEqual([]);
            expect([row.defaulted, row.actor]).toEqual(
              m % 2 ? [true, "system:default_on_expire"] : [false, "system:expiry"],
            );
          }
          for (const r of rs) {
            if (r.status !== 200)
              expect([r.status, r.body.error.code, r.body.status]).toEqual([409, "already_terminal", row.resolution]);
          }
          for (const g of gs) {
            expect(g.status).toBe(200);
            if (g.body.status !== "open") expect(g.body.response.resolution_id).toBe(row.id);
          }
          // After the dust settles every process reads the same single outcome.
          const after = await client(hubs[1]!.url, acme.keys[A]).get(`/v1/messages/${id}`);
          expect([after.body.status, after.body.response.resolution_id]).toEqual([row.resolution, row.id]);
        }),
      );
    }
    console.log(
      `resolve vs expiry: 24 boundaries (resolves fired ${lags.map((l) => l.toFixed(0)).join("/")} ms early); outcomes ${JSON.stringify(outcomes)}; winning answers by offset ${JSON.stringify(hits)}; ` +
        `terminal committed at expires_at ${margins
          .sort((x, y) => x - y)
          .map((d) => (d > 0 ? `+${d}` : `${d}`))
          .join(" ")} ms`,
    );
  });
});

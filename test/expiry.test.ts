/**
 * §7 expiry. First the CAS boundaries with the Hub clock pinned through
 * lib/clock, calling the lib verbs in this process; then real time: a 2 s `expires_at`, no request
 * for the message, the web and the worker running — the database must read `expired` within a
 * few seconds, on Redis and on BullMQ's PostgreSQL backend; and a worker started after the
 * deadline (nothing scheduled) expires it from its start sweep.
 */
// covers: lib/messages/expiry.ts, lib/jobs/handlers/expiry.ts, lib/jobs/sweeps.ts
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { fixedClock, setClock } from "../lib/clock";
import { db } from "../lib/db";
import { cancelMessage } from "../lib/messages/cancel";
import { expireDue, expireMessage } from "../lib/messages/expiry";
import { readMessage } from "../lib/messages/read";
import { resolveMessage } from "../lib/messages/resolve";
import { submitMessage } from "../lib/messages/submit";
import { authenticate, requireAgent } from "../lib/principals/authenticate";
import type { AgentPrincipal } from "../lib/principals/types";
import { HubError } from "@ma2h/protocol/errors";
import { client, startHub, type HubProcess } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";
import { producer } from "../lib/queue/producer";
import { EXPIRE_JOB } from "../lib/queue/jobs";

const A = "deploybot/dev-team";
const fx = useHubFixture({
  accounts: { acme: { agents: [A], humans: [{ handle: "alice", role: "owner" }] } },
  server: "none",
});
const acme = fx.account("acme");
let agent: AgentPrincipal;
let aliceId: string;

beforeAll(async () => {
  agent = requireAgent(await authenticate(new Headers({ authorization: `Bearer ${acme.keys[A]}` })));
  const alice = await authenticate(new Headers({ authorization: `Bearer ${acme.tokens.alice}` }));
  if (alice.kind !== "operator") throw new Error("expected an operator");
  aliceId = alice.userId;
});

afterAll(async () => {
  setClock(null);
});

const row = (id: string) => db().message.findUniqueOrThrow({ where: { id }, include: { resolution: true } });
const resolutions = (id: string) => db().resolution.count({ where: { messageId: id } });

/** The HubError a call threw (fails the test if it did not throw one). */
async function hubError(p: Promise<unknown>): Promise<HubError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof HubError) return err;
    throw err;
  }
  throw new Error("expected a HubError");
}

describe("the §7 CAS with the clock pinned", () => {
  const T0 = new Date("2031-05-01T10:00:00.000Z");
  const EXP = new Date(T0.getTime() + 60_000);
  const clockAt = fixedClock(T0);
  const ask = async (over: Record<string, unknown> = {}, type: "ask" | "task" = "ask") => {
    clockAt.set(T0);
    const body = envelope(type, A, { expires_at: EXP.toISOString(), ...over });
    if (body.expires_at === null) delete body.expires_at;
    const { ack } = await submitMessage(agent, body);
    return ack.id;
  };

  beforeEach(() => {
    clockAt.set(T0);
    setClock(clockAt);
  });
  afterEach(() => setClock(null));

  it("an answer at exactly expires_at wins (answered, not expired)", async () => {
    const id = await ask({
      request: {
        mode: "select",
        options: [
          { value: "ship", label: "Ship" },
          { value: "hold", label: "Hold" },
        ],
        default_on_expire: "hold",
      },
    });
    clockAt.set(EXP);
    const res = await resolveMessage({ kind: "agent", principal: agent }, id, {
      resolution: "answered",
      value: "ship",
    });
    expect(res.status).toBe("answered");
    const r = await row(id);
    expect(r.status).toBe("answered");
    expect(r.resolution?.resolvedAt.toISOString()).toBe(EXP.toISOString());
    expect(JSON.parse(r.resolution?.response ?? "{}")).toMatchObject({ value: "ship", actor: `agent:${A}` });
    clockAt.set(new Date(EXP.getTime() + 1));
    expect(await expireMessage(id)).toBe(false);
    expect(await resolutions(id)).toBe(1);
  });

  it("a human answer at expires_at + 1 ms is 409 already_terminal showing expired; one resolution", async () => {
    for (const resolver of [
      { kind: "human", userId: aliceId },
      { kind: "agent", principal: agent },
    ] as const) {
      const id = await ask();
      clockAt.set(new Date(EXP.getTime() + 1));
      const err = await hubError(resolveMessage(resolver, id, { resolution: "answered", value: "ship" }));
      expect([err.status, err.code]).toEqual([409, "already_terminal"]);
      expect(err.extra).toEqual({ id, status: "expired", resolution: "expired" });
      const r = await row(id);
      expect(r.status).toBe("expired");
      expect(r.resolution?.actor).toBe("system:expiry");
      expect(r.resolution?.resolvedAt.toISOString()).toBe(new Date(EXP.getTime() + 1).toISOString());
      expect(await resolutions(id)).toBe(1);
    }
  });

  it("a cancel at expires_at wins; strictly after it loses to expiry (409 expired, never cancelled)", async () => {
    const onTime = await ask();
    clockAt.set(EXP);
    expect(await cancelMessage(agent, onTime)).toEqual({ id: onTime, status: "cancelled" });

    const late = await ask({ request: { mode: "confirm", default_on_expire: "approve" } });
    clockAt.set(new Date(EXP.getTime() + 1));
    const err = await hubError(cancelMessage(agent, late));
    expect([err.status, err.code, err.extra.status]).toEqual([409, "already_terminal", "expired"]);
    const r = await row(late);
    expect(r.status).toBe("expired");
    expect(r.resolution).toMatchObject({ resolution: "expired", defaulted: true, actor: "system:default_on_expire" });
    expect(await resolutions(late)).toBe(1);
    // A second cancel still loses.
    expect((await hubError(cancelMessage(agent, late))).extra.status).toBe("expired");
  });

  it("with default_on_expire: expired, defaulted true, actor system:default_on_expire, value = default", async () => {
    const cases: Array<[Record<string, unknown>, unknown]> = [
      [
        {
          mode: "select",
          options: [
            { value: "ship", label: "Ship" },
            { value: "hold", label: "Hold" },
          ],
          default_on_expire: "hold",
        },
        "hold",
      ],
      [{ mode: "confirm", default_on_expire: "deny" }, "deny"],
      [
        {
          mode: "input",
          schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
          default_on_expire: { n: 3 },
        },
        { n: 3 },
      ],
    ];
    for (const [request, value] of cases) {
      const id = await ask({ request });
      clockAt.set(new Date(EXP.getTime() + 5));
      expect(await expireMessage(id)).toBe(true);
      const got = await readMessage(agent, id);
      if (got.notModified) throw new Error("unexpected 304");
      expect(got.body.status).toBe("expired");
      expect(got.body.response).toMatchObject({ resolution: "expired", defaulted: true });
      const response = (got.body.response as { response: Record<string, unknown> }).response;
      expect(response).toEqual({
        value,
        edited: false,
        actor: "system:default_on_expire",
        resolved_at: new Date(EXP.getTime() + 5).toISOString(),
      });
    }
  });

  it("without a default (absent or null): defaulted false, actor system:expiry, no value", async () => {
    for (const request of [{ mode: "confirm" }, { mode: "confirm", default_on_expire: null }]) {
      const id = await ask({ request });
      clockAt.set(new Date(EXP.getTime() + 1));
      expect(await expireMessage(id)).toBe(true);
      const got = await readMessage(agent, id);
      if (got.notModified) throw new Error("unexpected 304");
      const response = got.body.response as Record<string, unknown>;
      expect(response).toMatchObject({ resolution: "expired", defaulted: false });
      expect(response.response).toEqual({
        actor: "system:expiry",
        resolved_at: new Date(EXP.getTime() + 1).toISOString(),
      });
    }
  });

  it("an expired task carries no response object", async () => {
    const id = await ask({}, "task");
    clockAt.set(new Date(EXP.getTime() + 1));
    const got = await readMessage(agent, id); // a read of an overdue open message applies expiry
    if (got.notModified) throw new Error("unexpected 304");
    expect(got.body.status).toBe("expired");
    const response = got.body.response as Record<string, unknown>;
    expect(response).toMatchObject({ resolution: "expired", defaulted: false, in_reply_to: id });
    expect("response" in response).toBe(false);
    expect((await row(id)).resolution?.actor).toBe("system:expiry");
  });

  it("expireDue(now) sweeps only the overdue ones", async () => {
    const soon = await ask({ expires_at: new Date(T0.getTime() + 1000).toISOString() });
    const exact = await ask({ expires_at: new Date(T0.getTime() + 2000).toISOString() });
    const later = await ask({ expires_at: new Date(T0.getTime() + 10_000).toISOString() });
    const never = await ask({ expires_at: null });
    expect(await expireDue(new Date(T0.getTime() + 2000))).toBe(1); // `exact` is due only strictly after
    expect(await expireDue(new Date(T0.getTime() + 2001))).toBe(1);
    expect(await expireDue(new Date(T0.getTime() + 2001))).toBe(0);
    const status = async (id: string) => (await row(id)).status;
    expect([await status(soon), await status(exact), await status(later), await status(never)]).toEqual([
      "expired",
      "expired",
      "open",
      "open",
    ]);
  });
});

describe("in real time, with nobody watching", () => {
  const started: HubProcess[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((h) => h.stop()));
  });

  /** Polls the database (never the API) until the message leaves `open`; the wall-clock instant. */
  async function watchDb(
    id: string,
    timeoutMs: number,
  ): Promise<{ status: string; at: number; row: Awaited<ReturnType<typeof row>> }> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const r = await row(id);
      if (r.status !== "open") return { status: r.status, at: Date.now(), row: r };
      await new Promise((ok) => setTimeout(ok, 25));
    }
    throw new Error(`${id} still open after ${timeoutMs} ms`);
  }

  for (const backend of ["redis", "postgres"] as const) {
    it(`a BullMQ delayed job expires a 2 s ask on time (${backend} backend)`, async () => {
      const env = backend === "redis" ? { REDIS_URL: "redis://127.0.0.1:6379" } : {};
      const web = await startHub({ databaseUrl: fx.databaseUrl, mode: "web", env });
      started.push(web);
      const worker = await startHub({ databaseUrl: fx.databaseUrl, mode: "worker", env });
      started.push(worker);
      await waitForOutput(worker, "worker running");

      const api = client(web.url, acme.keys[A]);
      expect((await api.post("/v1/messages", envelope("notify", A))).status, web.output()).toBe(202); // warm the route
      const expiresAt = Date.now() + 2000;
      const res = await api.post(
        "/v1/messages",
        envelope("ask", A, {
          expires_at: new Date(expiresAt).toISOString(),
          request: { mode: "confirm", default_on_expire: "deny" },
        }),
      );
      expect(res.status, web.output()).toBe(202);
      const seen = await watchDb(res.body.id, 10_000);
      const lag = seen.at - expiresAt;
      const resolvedLag = (seen.row.resolution?.resolvedAt.getTime() ?? 0) - expiresAt;
      console.info(
        `[expiry] ${backend}: resolved_at ${resolvedLag} ms after expires_at, seen in the DB ${lag} ms after`,
      );
      expect(seen.status).toBe("expired");
      expect(seen.row.resolution).toMatchObject({ defaulted: true, actor: "system:default_on_expire" });
      expect(lag).toBeLessThanOrEqual(3000);
      // Nobody asked for it: the web process logged no request for that message.
      expect(web.output()).not.toContain(`/v1/messages/${res.body.id}`);
      // The delayed job did it, not the ≤ 5 s sweep (which logs what it expires). On Redis this
      // assumes no other Hub's worker consumes the same queue names on this Redis meanwhile.
      expect(worker.output(), worker.output()).not.toContain("sweep expired messages");
      expect(resolvedLag).toBeGreaterThan(0);
      expect(resolvedLag).toBeLessThanOrEqual(1500);
    });
  }

  it("a worker started after expires_at (nothing scheduled) expires it from its start sweep", async () => {
    const { ack } = await submitMessage(
      agent,
      envelope("ask", A, { expires_at: new Date(Date.now() + 500).toISOString() }),
    );
    // "Nothing scheduled": this process's submit queued the message's expiry job on the queue store
    // the worker below reads — take it off, or it races the start sweep for the message.
    await (await (await producer(EXPIRE_JOB.queue)).getJob(`expire-${ack.id}`))?.remove();
    await new Promise((ok) => setTimeout(ok, 1000));
    expect((await row(ack.id)).status).toBe("open"); // no worker, no job, no read: still open in the DB
    const t0 = Date.now();
    const worker = await startHub({ databaseUrl: fx.databaseUrl, mode: "worker", env: { REDIS_URL: undefined } });
    started.push(worker);
    const seen = await watchDb(ack.id, 60_000);
    await waitForOutput(worker, "worker running");
    const running = Date.parse(
      JSON.parse(
        worker
          .output()
          .split("\n")
          .find((l) => l.includes("worker running")) as string,
      ).time,
    );
    const afterRunning = (seen.row.resolution?.resolvedAt.getTime() ?? 0) - running;
    console.info(
      `[expiry] start sweep: expired ${seen.at - t0} ms after spawn, ${afterRunning} ms after "worker running"`,
    );
    expect(seen.status).toBe("expired");
    expect(seen.row.resolution?.actor).toBe("system:expiry");
    // The start sweep (it runs just before "worker running" is logged), not the 5 s periodic one.
    // Spawn-to-expired adds Node/tsx start-up, which on a loaded box alone can take 15 s.
    expect(afterRunning).toBeLessThanOrEqual(3000);
    await waitForOutput(worker, "sweep expired messages");
  });
});

async function waitForOutput(hub: HubProcess, needle: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!hub.output().includes(needle)) {
    if (Date.now() > deadline || hub.child.exitCode !== null)
      throw new Error(`no "${needle}" in output:\n${hub.output()}`);
    await new Promise((ok) => setTimeout(ok, 50));
  }
}

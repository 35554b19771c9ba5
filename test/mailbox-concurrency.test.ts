/**
 * The mailbox across processes (§8.7, §3.1, dp-007): many drains racing through two web processes
 * never hand one directive to two callers within a visibility window, and every directive is handed
 * out exactly once; a SIGKILL of the web process loses no un-acked directive — queued ones drain
 * from the restarted process at once, in-flight ones come back after their window.
 */
// covers: lib/mailbox/drain.ts, lib/mailbox/drain.sql.ts
import { describe, expect, it } from "vitest";
import { client, startHub } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";

const A = "deploybot/dev-team";
const K = "killed/bot";
/** The racing hubs keep the default 60 s window, so the whole race sits inside one window. */
const RACE_VISIBILITY_S = 60;
/** Long enough that the killed hub's restart (seconds on a loaded box) happens inside the window. */
const VISIBILITY_S = 15;
/** Two racing web processes; the hubs a test starts join them, and all are SIGKILLed at the end. */
const fx = useHubFixture({
  accounts: { acme: { agents: [A, K], humans: [{ handle: "alice", role: "owner" }] } },
  count: 2,
  env: { MA2H_INBOUND_VISIBILITY_TIMEOUT_SECONDS: String(RACE_VISIBILITY_S) },
  stopSignal: "SIGKILL",
});
const acme = fx.account("acme");
const hubs = fx.webs;
const env = { MA2H_INBOUND_VISIBILITY_TIMEOUT_SECONDS: String(VISIBILITY_S) };
type Entry = { directive: { id: string }; signature: string };

async function authorMany(n: number, to: string, base: string): Promise<string[]> {
  const alice = client(base, acme.tokens.alice);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await alice.post("/v1/directives", { to: `agent:${to}`, title: `directive ${i}` });
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
  return ids;
}

describe("concurrent drains in two processes", () => {
  it("each of 120 directives goes to exactly one of 12 racing drainers within the window", async () => {
    const ids = await authorMany(120, A, hubs[0]!.url);
    const got: string[][] = Array.from({ length: 12 }, () => []);
    const started = Date.now();
    await Promise.all(
      got.map(async (mine, i) => {
        const agent = client(hubs[i % 2]!.url, acme.keys[A]);
        for (;;) {
          const res = await agent.get("/v1/inbox?max=4");
          expect(res.status).toBe(200);
          const batch = (res.body.messages as Entry[]).map((e) => e.directive.id);
          if (batch.length === 0) return;
          mine.push(...batch);
        }
      }),
    );
    // All within one window, so any id seen twice would be a double hand-out, not a redelivery.
    expect(Date.now() - started).toBeLessThan(RACE_VISIBILITY_S * 1000);
    const all = got.flat();
    expect(all.length).toBe(ids.length);
    expect(new Set(all).size).toBe(ids.length);
    expect(new Set(all)).toEqual(new Set(ids));
    expect(got.filter((g) => g.length > 0).length).toBeGreaterThan(1); // they really raced
  });
});

describe("SIGKILL of the web process (§3.1)", () => {
  it("loses no un-acked directive: queued ones at once, in-flight ones after their window", {
    timeout: 90_000,
  }, async () => {
    const victim = await startHub({ databaseUrl: fx.databaseUrl, env });
    hubs.push(victim);
    const ids = await authorMany(5, K, victim.url);
    const agentOnVictim = client(victim.url, acme.keys[K]);
    const inFlight = ((await agentOnVictim.get("/v1/inbox?max=2")).body.messages as Entry[]).map((e) => e.directive.id);
    expect(inFlight).toEqual(ids.slice(0, 2));
    await victim.stop("SIGKILL");

    const revived = await startHub({ databaseUrl: fx.databaseUrl, env, port: victim.port });
    hubs.push(revived);
    const agent = client(revived.url, acme.keys[K]);
    const queued = ((await agent.get("/v1/inbox")).body.messages as Entry[]).map((e) => e.directive.id);
    expect(queued).toEqual(ids.slice(2));
    const back = ((await agent.get("/v1/inbox?wait=40")).body.messages as Entry[]).map((e) => e.directive.id);
    expect(back).toEqual(inFlight);
    expect((await agent.post("/v1/inbox/ack", { ids })).body).toEqual({ acked: 5 });
  });
});

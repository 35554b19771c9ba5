/**
 * An account's share of a web process's held-request ceiling (lib/limits/parked.ts): one account's
 * agents together park at most MA2H_MAX_PARKED_PER_ACCOUNT_PERCENT of MA2H_MAX_PARKED_PER_PROCESS
 * in one process — the next is `429 rate_limited` with `Retry-After` though each agent is under its
 * own cap and the process has room — while another account still parks there. Long-polls, drains
 * and their releases all count. A real web process on its own database.
 */
// covers: lib/limits/parked.ts
import http from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import { client } from "./support/hub";
import { type BearerAnswer, bearerGet } from "./support/bearer-get";
import { parkedStoreTotal } from "./support/parked-store";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";
import { waitFor } from "./support/wait";

const ACME = ["one/acme", "two/acme", "three/acme"];
const GLOBEX = "one/globex";

// Ceiling 4, a 50 % share: an account holds at most 2 in this process; each agent at most 2.
const hub = useHubFixture({
  server: "web",
  accounts: {
    acme: { agents: ACME, humans: [{ handle: "olga", role: "owner" }] },
    globex: { agents: [GLOBEX], humans: [{ handle: "gil", role: "owner" }] },
  },
  env: {
    MA2H_MAX_PARKED_PER_PROCESS: "4",
    MA2H_MAX_PARKED_PER_ACCOUNT_PERCENT: "50",
    MA2H_MAX_PARKED_PER_AGENT: "2",
  },
});
const acme = hub.account("acme");
const globex = hub.account("globex");

const pool = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
afterAll(() => pool.destroy());

function get(path: string, key: string): Promise<BearerAnswer> {
  return bearerGet(`${hub.url}${path}`, key, { agent: pool });
}

async function openAsk(keys: Record<string, string>, agentId: string): Promise<string> {
  const res = await client(hub.url, keys[agentId]).post("/v1/messages", envelope("ask", agentId));
  expect(res.status).toBe(202);
  return res.body.id as string;
}

describe("an account's share of a process", () => {
  it("one account with several agents stops at its share; another account still parks; a release frees one", async () => {
    const [a1, a2, a3] = ACME as [string, string, string];
    const ids = { [a1]: await openAsk(acme.keys, a1), [a2]: await openAsk(acme.keys, a2) };
    const g = await openAsk(globex.keys, GLOBEX);
    const key = (id: string) => acme.keys[id] as string;

    // Two of acme's agents park one each (a long-poll and a drain): acme's whole share.
    const poll = get(`/v1/messages/${ids[a1]}?wait=10`, key(a1));
    const drain = get("/v1/inbox?wait=10", key(a2));
    await waitFor(async () => (await parkedStoreTotal(a1)) === 1 && (await parkedStoreTotal(a2)) === 1, {
      timeout: 20_000, // generous for a loaded machine
      what: "the long-poll and the drain parked",
    });

    // A third agent of acme — holding nothing, under its own cap of 2 — is over the account's share.
    const third = await get("/v1/inbox?wait=1", key(a3));
    expect(third.status).toBe(429);
    expect(Object.keys(third.body)).toEqual(["error"]);
    expect(third.body.error.code).toBe("rate_limited");
    expect(third.body.error.message).toMatch(/this account's agents already hold 2 parked requests/);
    expect(third.retryAfter).toMatch(/^[1-9]\d*$/);
    // And so is a second slot of an agent that holds one (its own cap would allow it).
    const second = await get(`/v1/messages/${ids[a1]}?wait=1`, key(a1));
    expect(second.status).toBe(429);
    expect(second.body.error.code).toBe("rate_limited");
    // Not parking costs nothing: acme's plain reads still answer.
    expect((await get(`/v1/messages/${ids[a1]}`, key(a1))).status).toBe(200);
    expect((await get("/v1/inbox", key(a3))).status).toBe(200);

    // Globex is another tenant: it parks its two in the same process (4 of 4 now).
    const t0 = Date.now();
    const [g1, g2] = await Promise.all([
      get(`/v1/messages/${g}?wait=1`, globex.keys[GLOBEX] as string),
      get("/v1/inbox?wait=1", globex.keys[GLOBEX] as string),
    ]);
    expect(g1.status).toBe(200);
    expect(g2.status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900); // both parked for their whole wait

    // The drain times out and gives its slot back: acme parks again.
    expect((await drain).status).toBe(200);
    const again = await get("/v1/inbox?wait=1", key(a3));
    expect(again.status).toBe(200);
    expect((await poll).status).toBe(200);
  }, 60_000);
});

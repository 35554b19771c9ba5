/**
 * Failed authentications are throttled per source address (lib/http/auth-throttle.ts), against two
 * real web processes on one database: after MA2H_AUTH_FAILURES_PER_MINUTE `401`s from an address,
 * its next request — a good credential included — is `429 rate_limited` with `Retry-After`, the
 * §8.5 envelope, in either process (the count is shared); another address is unaffected. The webs
 * listen on both stacks, so 127.0.0.1 and ::1 are two clients of the same server.
 */
// covers: lib/http/auth-throttle.ts
import { describe, expect, it } from "vitest";
import type { HubProcess } from "./support/hub";
import { type BearerAnswer, bearerGet } from "./support/bearer-get";
import { useHubFixture } from "./support/hub-fixture";
import { elapse } from "./support/wait";

const A = "bot/acme";
const BUDGET = 3;

const hub = useHubFixture({
  server: "web",
  count: 2,
  accounts: { acme: { agents: [A], humans: [{ handle: "olga", role: "owner" }] } },
  env: { MA2H_AUTH_FAILURES_PER_MINUTE: String(BUDGET), HOST: "::" },
});
const acme = hub.account("acme");

/** GET `path` from `from` (the client address: 127.0.0.1 or ::1) with a bearer credential. */
function get(web: HubProcess, path: string, credential: string, from: "127.0.0.1" | "::1"): Promise<BearerAnswer> {
  return bearerGet({ host: from, port: web.port, path }, credential, { agent: false });
}

function expectThrottled(a: BearerAnswer): void {
  expect(a.status).toBe(429);
  expect(Object.keys(a.body)).toEqual(["error"]);
  expect(a.body.error.code).toBe("rate_limited");
  expect(a.body.error.message).toMatch(/too many failed authentications/);
  expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(a.retryAfter)).toBeLessThanOrEqual(60);
}

describe("failed authentications per source address", () => {
  it("after the budget of 401s (over both processes) the address gets 429 + Retry-After; another address does not", async () => {
    const [w1, w2] = hub.webs as [HubProcess, HubProcess];
    // The budget is a fixed one-minute window: start well inside one, so the failures share it.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 45_000)
      await elapse(60_000 - intoMinute + 200, "the budget's window is the wall-clock minute in the Hub processes");
    const good = acme.keys[A] as string;
    const bad = `${good.slice(0, -4)}xxxx`;
    // A good credential works from the address before anything failed.
    expect((await get(w1, "/v1/inbox", good, "::1")).status).toBe(200);

    // The budget, spent over both processes: each failure is a plain 401.
    const spent = [
      await get(w1, "/v1/inbox", bad, "::1"),
      await get(w2, "/v1/inbox", "ma2h_pat_not-a-token", "::1"),
      await get(w1, "/v1/messages/msg_nope", bad, "::1"),
    ];
    for (const a of spent) {
      expect(a.status).toBe(401);
      expect(a.body.error.code).toBe("unauthenticated");
    }

    // Now the address is refused in the process that counted the last failure — whatever it
    // presents, a good key included (nothing is looked up)…
    expectThrottled(await get(w1, "/v1/inbox", bad, "::1"));
    expectThrottled(await get(w1, "/v1/inbox", good, "::1"));
    // …and in the other one: its next failure is over the shared budget, so it is refused too.
    expectThrottled(await get(w2, "/v1/inbox", bad, "::1"));
    expectThrottled(await get(w2, "/v1/inbox", good, "::1"));

    // Another address is another client: its good key works and its failures are its own.
    expect((await get(w1, "/v1/inbox", good, "127.0.0.1")).status).toBe(200);
    expect((await get(w2, "/v1/inbox", bad, "127.0.0.1")).status).toBe(401);
    expect((await get(w2, "/v1/inbox", good, "127.0.0.1")).status).toBe(200);
  }, 90_000);
});

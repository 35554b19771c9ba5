/**
 * `client.directives.listen` against the real Hub (§8.7, §9.7, §13.4, §14.3): a directive a person
 * authored with a PAT is verified, handed to the handler once and acked with the handler's note,
 * which the person then reads; a throwing handler leaves it un-acked and it comes back after the
 * (shortened) visibility timeout; a redelivery while the first consumer still works is not handed
 * to a second one sharing the dedup store; an entry that does not verify for this agent is reported
 * to onRejected, never handed over, never acked; so is one from a sender outside the agent's own
 * `directivesFrom` policy (§13.5). Needs Part A (verify-directive, stores, keys).
 */
// covers: packages/agent/src/directives.ts, packages/agent/src/directive-senders.ts
import { describe, expect, it } from "vitest";
import { type DedupStore, type Directive, Ma2hClient, MemoryDedupStore, SenderNotAcceptedError } from "../src";
import { client } from "../../../test/support/hub";
import { useHubFixture } from "../../../test/support/hub-fixture";
import { staysFalse, waitFor } from "../../../test/support/wait";

const A = "deploybot/dev-team";
const B = "overseer/fleet";
const C = "careful/fleet";
const VISIBILITY_S = 2;
const hub = useHubFixture({
  accounts: { acme: { agents: [A, B, C], humans: [{ handle: "alice", role: "owner" }] } },
  env: { MA2H_INBOUND_VISIBILITY_TIMEOUT_SECONDS: String(VISIBILITY_S) },
});
const acme = hub.account("acme");
const sdk = (agentId = A, key = acme.keys[agentId]!) =>
  new Ma2hClient({ url: hub.url, apiKey: key, agentId, retry: { baseDelayMs: 20 } });
const alice = () => client(hub.url, acme.tokens.alice);

async function author(to: string, title: string): Promise<string> {
  const res = await alice().post("/v1/directives", { to: `agent:${to}`, title, body: "From the on-call human." });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const until = (check: () => boolean | Promise<boolean>, timeout = 15_000) => waitFor(check, { timeout });

describe("directives.listen (§13.4)", () => {
  it("hands a verified directive to the handler once and acks it with the handler's note", async () => {
    const id = await author(A, "Pause deploys");
    const seen: Directive[] = [];
    const controller = new AbortController();
    const listening = sdk().directives.listen(
      (d) => {
        seen.push(d);
        return "on it — pausing now";
      },
      { signal: controller.signal },
    );
    await until(async () => (await alice().get(`/v1/directives/${id}`)).body?.status === "acknowledged");
    const view = await alice().get(`/v1/directives/${id}`);
    expect(view.body.delivery).toMatchObject({ state: "acknowledged", note: "on it — pausing now" });
    // It would have come back by now had it not been acked: a window in which it must not.
    await staysFalse(() => seen.length > 1, VISIBILITY_S * 1000 + 500, "a redelivery of the acked directive");
    controller.abort();
    await expect(listening).resolves.toBeUndefined();
    expect(seen.map((d) => d.id)).toEqual([id]);
    expect(seen[0]).toMatchObject({ type: "directive", title: "Pause deploys", to: `agent:${A}`, from: "human:alice" });
  });

  it("a throwing handler leaves it un-acked; it is redelivered and handled again", async () => {
    const id = await author(A, "Rotate the key");
    const calls: number[] = [];
    const errors: unknown[] = [];
    const controller = new AbortController();
    const listening = sdk().directives.listen(
      () => {
        calls.push(Date.now());
        if (calls.length === 1) throw new Error("disk full");
        return "rotated";
      },
      { signal: controller.signal, onError: (e) => errors.push(e) },
    );
    await until(() => calls.length >= 1);
    expect((await alice().get(`/v1/directives/${id}`)).body.status).not.toBe("acknowledged");
    await until(async () => (await alice().get(`/v1/directives/${id}`)).body?.status === "acknowledged");
    controller.abort();
    await listening;
    expect(calls).toHaveLength(2);
    expect(calls[1]! - calls[0]!).toBeGreaterThanOrEqual(VISIBILITY_S * 1000 - 200);
    expect((errors[0] as Error).message).toBe("disk full");
    expect((await alice().get(`/v1/directives/${id}`)).body.delivery.note).toBe("rotated");
  });

  it("a redelivery while the first consumer still works is not handed to a second one", async () => {
    const refused: string[] = [];
    // The shared store, watched: the second consumer's reservation of the redelivered id must fail.
    const inner = new MemoryDedupStore();
    const dedupStore: DedupStore = {
      reserve: async (key) => {
        const ok = await inner.reserve(key);
        if (!ok) refused.push(key);
        return ok;
      },
      release: (key) => inner.release(key),
      has: (key) => inner.has(key),
    };
    const handled: string[] = [];
    const controller = new AbortController();
    const slow = sdk().directives.listen(
      async (d) => {
        handled.push(`slow:${d.id}`);
        // Outlives the visibility timeout: still working when the redelivery is drained and refused.
        await waitFor(() => refused.includes(d.id), { what: "the redelivery's refused reservation" });
        return "slow but done";
      },
      { signal: controller.signal, dedupStore },
    );
    const id = await author(A, "Only once");
    await until(() => handled.length === 1);
    const second = sdk().directives.listen(
      (d) => {
        handled.push(`second:${d.id}`);
        return "should not happen";
      },
      { signal: controller.signal, dedupStore },
    );
    await until(async () => (await alice().get(`/v1/directives/${id}`)).body?.status === "acknowledged", 20_000);
    controller.abort();
    await Promise.all([slow, second]);
    expect(handled).toEqual([`slow:${id}`]);
    expect(refused).toContain(id); // the redelivery was drained and refused, not missed
    expect((await alice().get(`/v1/directives/${id}`)).body.delivery.note).toBe("slow but done");
  });

  it("an entry that does not verify for this agent goes to onRejected and is not acked", async () => {
    const id = await author(B, "For B");
    const rejected: string[] = [];
    const handled: string[] = [];
    const controller = new AbortController();
    // B's key drains B's mailbox, but this client believes it is A: the addressee check fails.
    const listening = sdk(A, acme.keys[B]).directives.listen((d) => void handled.push(d.id), {
      signal: controller.signal,
      onRejected: (e) => rejected.push(e.reason),
    });
    await until(() => rejected.length >= 1);
    controller.abort();
    await listening;
    expect(rejected[0]).toBe("wrong_addressee");
    expect(handled).toEqual([]);
    expect((await alice().get(`/v1/directives/${id}`)).body.status).not.toBe("acknowledged");
    // Still B's to consume: B's own listener gets it.
    const verified = await sdk(B).directives.drain({ wait: VISIBILITY_S + 2 });
    expect(verified.map((d) => d.id)).toEqual([id]);
  });
});

describe("directivesFrom: the agent's own policy for who may instruct it (§13.5)", () => {
  it("a directive from a sender the policy does not list is reported, not handed over, not acked; a listed sender's is", async () => {
    const c = sdk(C);
    await expect(c.directives.drain({ directivesFrom: ["alice"] })).rejects.toThrow(TypeError);
    const id = await author(C, "Drop the staging tables");
    const rejected: unknown[] = [];
    const got = await c.directives.drain({
      wait: 10,
      directivesFrom: ["human:bob"],
      onRejected: (e) => rejected.push(e),
    });
    expect(got).toEqual([]);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toBeInstanceOf(SenderNotAcceptedError);
    expect(rejected[0]).toMatchObject({ from: "human:alice", ackKey: id });
    expect((await alice().get(`/v1/directives/${id}`)).body.delivery.state).not.toBe("acknowledged");

    // listen applies it too: [] accepts nobody; the listed person's directive is handled and acked.
    const seen: string[] = [];
    const refusedByListen: unknown[] = [];
    const none = new AbortController();
    const closed = c.directives.listen((d) => void seen.push(d.id), {
      signal: none.signal,
      directivesFrom: [],
      onRejected: (e) => refusedByListen.push(e),
    });
    await until(() => refusedByListen.length > 0);
    none.abort();
    await closed;
    expect(refusedByListen[0]).toMatchObject({ from: "human:alice", ackKey: id });
    expect(seen).toEqual([]);

    const listed = new AbortController();
    const open = c.directives.listen((d) => void seen.push(d.id), {
      signal: listed.signal,
      directivesFrom: ["human:alice"],
    });
    await until(async () => (await alice().get(`/v1/directives/${id}`)).body?.status === "acknowledged");
    listed.abort();
    await open;
    expect(seen).toEqual([id]);
  }, 60_000);
});

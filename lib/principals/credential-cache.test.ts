/**
 * The credential cache (credential-cache.ts) against a real PostgreSQL and the process's real LISTEN
 * connection: entries expire, the size is bounded (least recently used out first), failures are
 * never kept, a NOTIFY from another connection drops what it names, a lookup racing a drop is not
 * stored, and while the LISTEN connection is down the cache is empty and bypassed.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "../../test/support/test-database";
import { waitFor } from "../../test/support/wait";
import { CREDENTIALS_CHANNEL } from "../pubsub/channels";
import { notificationListener } from "../pubsub/listener";
import { db } from "../db";
import {
  announceCredentialChange,
  type CachedCredential,
  CredentialCache,
  credentialCache,
  credentialTransaction,
} from "./credential-cache";
import type { Principal } from "./types";

const database = useTestDatabase();
let admin: pg.Client;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});

afterAll(async () => {
  await notificationListener().close();
  await admin?.end();
});

const agent = (n: number, accountId = "acct_1"): Principal => ({
  kind: "agent",
  agentRowId: `agent_${n}`,
  agentId: `bot-${n}`,
  accountId,
  keyId: `key_${n}`,
});
const operator = (n: number, userId = `user_${n}`): Principal => ({ kind: "operator", userId, tokenId: `tok_${n}` });

/** A cache on a settable monotonic clock, and a loader that counts its reads. */
async function setup(opts: { ttlMs?: number; maxEntries?: number } = {}) {
  let t = 1_000;
  const cache = new CredentialCache({
    ttlMs: opts.ttlMs ?? 5000,
    maxEntries: opts.maxEntries ?? 100,
    listener: notificationListener,
    now: () => t,
  });
  const reads = new Map<string, number>();
  const lookup = (hash: string, principal: Principal) =>
    cache.resolve(hash, async (): Promise<CachedCredential> => {
      reads.set(hash, (reads.get(hash) ?? 0) + 1);
      return { principal, lastUsedAt: null };
    });
  // The first lookup subscribes and starts the connection; until it is up nothing is kept.
  await notificationListener().ready();
  await lookup("warmup", agent(0));
  return {
    cache,
    lookup,
    reads: (hash: string) => reads.get(hash) ?? 0,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

const notify = (payload: string) => admin.query("SELECT pg_notify($1, $2)", [CREDENTIALS_CHANNEL, payload]);

describe("the credential cache", () => {
  it("serves a hit within the TTL and reads again once it expires", async () => {
    const { lookup, reads, advance } = await setup({ ttlMs: 5000 });
    await lookup("h1", agent(1));
    await lookup("h1", agent(1));
    advance(4_999);
    expect((await lookup("h1", agent(1))).principal).toEqual(agent(1));
    expect(reads("h1")).toBe(1);
    advance(1);
    await lookup("h1", agent(1));
    expect(reads("h1")).toBe(2);
  });

  it("keeps at most maxEntries, dropping the least recently used", async () => {
    const { cache, lookup, reads } = await setup({ maxEntries: 3 });
    cache.clear();
    for (const h of ["a", "b", "c"]) await lookup(h, agent(1));
    await lookup("a", agent(1)); // a is now the most recent: b goes first
    await lookup("d", agent(1));
    expect(cache.size).toBe(3);
    await lookup("a", agent(1));
    await lookup("c", agent(1));
    await lookup("d", agent(1));
    expect([reads("a"), reads("c"), reads("d")]).toEqual([1, 1, 1]);
    await lookup("b", agent(1));
    expect(reads("b")).toBe(2);
  });

  it("never keeps a refusal", async () => {
    const { cache } = await setup();
    let reads = 0;
    const refuse = () =>
      cache.resolve("bad", async () => {
        reads++;
        throw new Error("unauthenticated");
      });
    await expect(refuse()).rejects.toThrow("unauthenticated");
    await expect(refuse()).rejects.toThrow("unauthenticated");
    expect(reads).toBe(2);
  });

  it("off at TTL 0: every lookup reads", async () => {
    const { lookup, reads } = await setup({ ttlMs: 0 });
    await lookup("z", agent(1));
    await lookup("z", agent(1));
    expect(reads("z")).toBe(2);
  });

  it("a NOTIFY from another connection drops what it names, and only that", async () => {
    const { lookup, reads } = await setup();
    const entries: Array<[string, Principal]> = [
      ["k1", agent(1)],
      ["k2", agent(2, "acct_2")],
      ["k3", agent(3, "acct_3")],
      ["t1", operator(1)],
      ["t2", operator(2, "user_shared")],
      ["t3", operator(3, "user_shared")],
      ["t4", operator(4)],
    ];
    const fill = () => Promise.all(entries.map(([h, p]) => lookup(h, p)));
    const readsNow = () => entries.map(([h]) => reads(h));
    const refillAndCount = async () => {
      await fill();
      return readsNow();
    };
    await fill();
    await fill();
    expect(readsNow()).toEqual([1, 1, 1, 1, 1, 1, 1]);

    // Each kind, each from outside this process's pool, on commit.
    for (const [payload, expected] of [
      ["key:key_1", [2, 1, 1, 1, 1, 1, 1]],
      ["agent:agent_2", [2, 2, 1, 1, 1, 1, 1]],
      ["account:acct_3", [2, 2, 2, 1, 1, 1, 1]],
      ["token:tok_1", [2, 2, 2, 2, 1, 1, 1]],
      ["person:user_shared", [2, 2, 2, 2, 2, 2, 1]],
    ] as Array<[string, number[]]>) {
      await notify(payload);
      await expect.poll(refillAndCount, { interval: 20 }).toEqual(expected);
    }
    // A payload it cannot read empties the cache.
    await notify("garbage");
    await expect.poll(async () => (await refillAndCount())[6], { interval: 20 }).toBe(2);
  });

  it("does not store a lookup that a drop overtook (read before the revoking commit)", async () => {
    const { cache, lookup, reads } = await setup();
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const slow = cache.resolve("race", async () => {
      await gate; // the row was read before the revocation committed…
      return { principal: agent(9), lastUsedAt: null };
    });
    cache.drop({ kind: "key", id: "key_9" }); // …and the revocation's drop came first
    release();
    await slow;
    await lookup("race", agent(9));
    expect(reads("race")).toBe(1); // read again, not served from the raced entry
  });

  it("while the LISTEN connection is down: emptied and bypassed, then caching again once it is back", async () => {
    const { cache, lookup, reads } = await setup();
    await lookup("L", agent(1));
    await lookup("L", agent(1));
    expect(reads("L")).toBe(1);
    expect(cache.size).toBeGreaterThan(0);

    await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'",
    );
    await expect.poll(() => notificationListener().isListening()).toBe(false);
    expect(cache.size).toBe(0);
    // Down: every lookup reads and nothing is kept (a NOTIFY sent now would be lost).
    const downLookups: Array<{ before: number; after: number }> = [];
    let failed: unknown = null;
    await waitFor(
      async () => {
        if (notificationListener().isListening()) return true;
        const before = reads("L");
        try {
          await lookup("L", agent(1));
        } catch (err) {
          failed = err; // a lookup must not fail while the listener is down: stop and report it
          return true;
        }
        downLookups.push({ before, after: reads("L") });
        return notificationListener().isListening();
      },
      { timeout: 10_000, what: "the listener to reconnect" },
    );
    if (failed) throw failed;
    for (const { before, after } of downLookups) expect(after).toBe(before + 1);
    expect(downLookups.length).toBeGreaterThan(0);
    // Back (the listener reconnects by itself): hits again.
    await expect.poll(() => notificationListener().isListening(), { timeout: 10_000 }).toBe(true);
    await lookup("L", agent(1));
    const after = reads("L");
    await lookup("L", agent(1));
    expect(reads("L")).toBe(after);
  });

  it("the revoking process drops the entry right after its commit, even one re-read while it was open", async () => {
    const cache = credentialCache();
    let reads = 0;
    const look = () =>
      cache.resolve("in-tx", async () => {
        reads++;
        return { principal: agent(7), lastUsedAt: null };
      });
    await look(); // subscribes the process-wide cache
    await notificationListener().ready();
    await look();
    await credentialTransaction(async (tx) => {
      await announceCredentialChange(tx, { kind: "key", id: "key_7" });
      await look(); // before the commit the key still looks live: read and kept again
    });
    const before = reads;
    await look(); // at once, not when this process's own NOTIFY comes back
    expect(reads).toBe(before + 1);
  });

  it("refuses an announcement outside credentialTransaction (this process would keep the entry)", async () => {
    await expect(db().$transaction((tx) => announceCredentialChange(tx, { kind: "key", id: "key_8" }))).rejects.toThrow(
      /credentialTransaction/,
    );
  });
});

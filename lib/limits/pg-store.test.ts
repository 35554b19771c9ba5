/**
 * The PostgreSQL held-request store (lib/limits/pg-store.ts) against the real database: a burst of
 * acquires on one key, from two processes at once, counts exactly the cap — whatever the batching —
 * serves each process's requests in the order they came, and a released slot is taken again.
 */
import { describe, expect, it } from "vitest";
import { db } from "../db";
import { useTestDatabase } from "../../test/support/test-database";
import { pgHeldStore } from "./pg-store";
import { LEASE_MS } from "./store";

useTestDatabase();

async function total(key: string): Promise<number> {
  const rows = await db().parkedCount.findMany({ where: { key } });
  return rows.reduce((n, r) => n + r.count, 0);
}

describe("pgHeldStore", () => {
  it("a burst from two processes counts exactly the cap, first come first counted in each", async () => {
    const store = pgHeldStore();
    await store.heartbeat("proc_a", []);
    await store.heartbeat("proc_b", []);
    const key = "agent:agt_burst";
    const order: string[] = [];
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) => {
        const proc = i % 2 ? "proc_b" : "proc_a";
        return store.acquire(key, proc, 120).then((ok) => {
          order.push(`${proc}:${i}:${ok}`);
          return { proc, i, ok };
        });
      }),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(120);
    expect(await total(key)).toBe(120);
    // Within one process, nothing that came later was counted ahead of something refused earlier.
    for (const proc of ["proc_a", "proc_b"]) {
      const mine = results.filter((r) => r.proc === proc);
      const firstRefused = mine.findIndex((r) => !r.ok);
      if (firstRefused >= 0) expect(mine.slice(firstRefused).every((r) => !r.ok)).toBe(true);
    }
    // At the cap, one more is refused; a release frees exactly one slot.
    expect(await store.acquire(key, "proc_a", 120)).toBe(false);
    const holder = results.find((r) => r.ok)?.proc ?? "proc_a";
    await store.release(key, holder);
    expect(await store.acquire(key, "proc_b", 120)).toBe(true);
    expect(await store.acquire(key, "proc_b", 120)).toBe(false);
    expect(await total(key)).toBe(120);
  });

  it("counts of a process whose lease lapsed stop counting", async () => {
    const store = pgHeldStore();
    await store.heartbeat("proc_live", []);
    await db().processLease.create({ data: { processId: "proc_dead", aliveUntil: new Date(Date.now() - LEASE_MS) } });
    await db().parkedCount.create({ data: { key: "agent:agt_lapsed", processId: "proc_dead", count: 5 } });
    const got = await Promise.all(Array.from({ length: 6 }, () => store.acquire("agent:agt_lapsed", "proc_live", 5)));
    expect(got.filter(Boolean)).toHaveLength(5);
  });
});

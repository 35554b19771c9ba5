/**
 * The long-poll registry's shared reads (no database needed): concurrent waiters share one read of
 * a message, but a wake for that message always forces a fresh one, so no waiter woken by a commit
 * can be handed a row fetched before it.
 */
import { describe, expect, it } from "vitest";
import { terminalWaiters } from "./waiters";

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

describe("terminalWaiters().shared", () => {
  const w = terminalWaiters();

  it("runs one read for concurrent callers of one id, separate reads for other ids", async () => {
    let reads = 0;
    const first = deferred<string>();
    const read = () => {
      reads++;
      return first.promise;
    };
    const [a, b, c] = [w.shared("m1", read), w.shared("m1", read), w.shared("m2", () => Promise.resolve("other"))];
    first.resolve("row");
    expect(await Promise.all([a, b, c])).toEqual(["row", "row", "other"]);
    expect(reads).toBe(1);
    // Settled reads are not cached: the next caller reads again.
    expect(await w.shared("m1", () => Promise.resolve("again"))).toBe("again");
  });

  it("never lets a caller after a wake join a read that started before it", async () => {
    const stale = deferred<string>();
    const before = w.shared("m3", () => stale.promise);
    w.wake("m3");
    const after = w.shared("m3", () => Promise.resolve("fresh"));
    const alsoAfter = w.shared("m3", () => Promise.resolve("second fresh read"));
    stale.resolve("stale");
    expect(await Promise.all([before, after, alsoAfter])).toEqual(["stale", "fresh", "fresh"]);
    const old = deferred<string>();
    void w.shared("m4", () => old.promise);
    w.wakeAll();
    expect(await w.shared("m4", () => Promise.resolve("fresh"))).toBe("fresh");
    old.resolve("stale");
  });

  it("does not keep a failed read", async () => {
    const failing = deferred<string>();
    const p = w.shared("m5", () => failing.promise);
    failing.reject(new Error("db down"));
    await expect(p).rejects.toThrow("db down");
    expect(await w.shared("m5", () => Promise.resolve("ok"))).toBe("ok");
  });
});

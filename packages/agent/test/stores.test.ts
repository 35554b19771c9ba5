/**
 * The SDK's replay and dedup stores (packages/agent/src/stores.ts): memory semantics, the file
 * stores surviving a "restart" (a new instance on the same directory), one file per key in a
 * private directory, expiry, and a race — two instances, and two processes — where exactly one
 * reserve of each key wins.
 */
// covers: packages/agent/src/stores.ts
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import {
  FileDedupStore,
  FileReplayStore,
  MemoryDedupStore,
  MemoryReplayStore,
  responseDedupKey,
  type DedupStore,
  type ReplayStore,
} from "../src/stores";
import { repoRoot } from "../../../test/support/hub";

const run = promisify(execFile);
const fresh = () => join(mkdtempSync(join(tmpdir(), "ma2h-stores-")), "nested", "dir");
const at = (s: number) => new Date(1_800_000_000_000 + s * 1000);

async function replaySemantics(store: ReplayStore) {
  expect(await store.checkAndRecord("jti_a", at(120), at(0))).toBe(true);
  expect(await store.checkAndRecord("jti_a", at(120), at(60))).toBe(false); // a replay
  expect(await store.checkAndRecord("jti_b", at(120), at(60))).toBe(true);
  expect(await store.checkAndRecord("jti_a", at(300), at(121))).toBe(true); // forgotten after its expiry
  expect(await store.checkAndRecord("jti_a", at(300), at(122))).toBe(false);
}

async function dedupSemantics(store: DedupStore) {
  const key = responseDedupKey({ in_reply_to: "msg_1", resolution_id: "res_1" });
  expect(await store.has(key)).toBe(false);
  expect(await store.reserve(key)).toBe(true);
  expect(await store.reserve(key)).toBe(false);
  expect(await store.has(key)).toBe(true);
  await store.release(key);
  expect(await store.has(key)).toBe(false);
  expect(await store.reserve(key)).toBe(true);
  await store.release("never reserved"); // harmless
}

describe("responseDedupKey", () => {
  it("is the pair, unambiguous whatever the ids hold", () => {
    const k = (a: string, b: string) => responseDedupKey({ in_reply_to: a, resolution_id: b });
    expect(k("msg_1", "res_1")).toBe(k("msg_1", "res_1"));
    expect(k("msg_1", "res_2")).not.toBe(k("msg_1", "res_1"));
    expect(k("a,b", "c")).not.toBe(k("a", "b,c"));
  });
});

describe("memory stores", () => {
  it("replay: a jti is refused until its expiry, then forgotten", () => replaySemantics(new MemoryReplayStore()));
  it("dedup: reserve once, release re-opens", () => dedupSemantics(new MemoryDedupStore()));
});

describe("file stores", () => {
  it("replay and dedup semantics, in a directory created on demand with mode 0700", async () => {
    const dir = fresh();
    await replaySemantics(new FileReplayStore(join(dir, "jti")));
    await dedupSemantics(new FileDedupStore(join(dir, "dedup")));
    expect(statSync(join(dir, "jti")).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "dedup")).mode & 0o777).toBe(0o700);
    // One file per key, named by its SHA-256: nothing of the key shows in the name. jti_b expired
    // at 120 s and was swept by the call at 121 s; jti_a's second record is the one file left.
    const names = readdirSync(join(dir, "jti"));
    expect(names.length).toBe(1);
    for (const n of names) expect(n).toMatch(/^[0-9a-f]{64}$/);
  });

  it("survive a restart: a new instance on the same directory remembers", async () => {
    const dir = fresh();
    expect(await new FileReplayStore(dir).checkAndRecord("jti_x", at(120), at(0))).toBe(true);
    expect(await new FileReplayStore(dir).checkAndRecord("jti_x", at(120), at(10))).toBe(false);
    const dedupDir = fresh();
    const key = responseDedupKey({ in_reply_to: "msg_r", resolution_id: "res_r" });
    expect(await new FileDedupStore(dedupDir).reserve(key)).toBe(true);
    const restarted = new FileDedupStore(dedupDir);
    expect(await restarted.has(key)).toBe(true);
    expect(await restarted.reserve(key)).toBe(false);
    await restarted.release(key);
    expect(await new FileDedupStore(dedupDir).reserve(key)).toBe(true);
  });

  it("prunes expired jti files lazily and treats a half-written entry as live", async () => {
    const dir = fresh();
    const store = new FileReplayStore(dir);
    for (let i = 0; i < 5; i++) await store.checkAndRecord(`jti_${i}`, at(10), at(0));
    expect(readdirSync(dir).length).toBe(5);
    // A minute later the next call sweeps what expired.
    expect(await store.checkAndRecord("jti_late", at(200), at(100))).toBe(true);
    expect(readdirSync(dir).length).toBe(1);
    // An empty file (a writer between create and write) is a sighting, never an expired entry.
    const other = new FileReplayStore(dir);
    await other.checkAndRecord("jti_probe", at(500), at(100));
    for (const n of readdirSync(dir)) writeFileSync(join(dir, n), "");
    expect(await new FileReplayStore(dir).checkAndRecord("jti_probe", at(500), at(400))).toBe(false);
  });

  it("two instances racing on the same keys: exactly one reserve of each wins", async () => {
    const dir = fresh();
    const a = new FileDedupStore(dir);
    const b = new FileDedupStore(dir);
    const keys = Array.from({ length: 40 }, (_, i) => `response:key-${i}`);
    const results = await Promise.all(keys.flatMap((k) => [a.reserve(k), b.reserve(k)]));
    for (let i = 0; i < keys.length; i++) expect([results[2 * i], results[2 * i + 1]].sort()).toEqual([false, true]);
    const r1 = new FileReplayStore(fresh());
    const jtis = await Promise.all(
      Array.from({ length: 20 }, () => [r1.checkAndRecord("jti_same", at(120), at(0))]).flat(),
    );
    expect(jtis.filter(Boolean)).toHaveLength(1);
  });

  it("two processes racing on the same keys: exactly one reserve of each wins", async () => {
    const dir = fresh();
    const script = `
      import { FileDedupStore } from ${JSON.stringify(join(repoRoot, "packages/agent/src/stores.ts"))};
      const s = new FileDedupStore(${JSON.stringify(dir)});
      const won = await Promise.all(Array.from({ length: 60 }, (_, i) => s.reserve("k" + i)));
      process.stdout.write(JSON.stringify(won));`;
    const child = () =>
      run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: repoRoot }).then(
        (r) => JSON.parse(r.stdout) as boolean[],
      );
    const [one, two] = await Promise.all([child(), child()]);
    for (let i = 0; i < 60; i++) expect([one![i], two![i]].sort(), `key ${i}`).toEqual([false, true]);
  });
});

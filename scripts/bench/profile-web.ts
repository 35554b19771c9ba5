/**
 * A CPU profile of the built web under one closed-loop phase (docs/PERFORMANCE.md "Where the time
 * goes"): `node --import tsx scripts/bench/profile-web.ts <floor|submit|resolve> [seconds]` starts the
 * web with --cpu-prof into BENCH_PROFILE_DIR (default /tmp/ma2h-bench/profile), drives it at 8
 * connections and prints the functions with the most self time, grouped by package.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createTestDatabase } from "../../test/support/database";
import { provisionAccount, releaseDatabase, useDatabase } from "../../test/support/provision";
import { benchEnvelope, drive, fmt, logDir, startWeb, summarize } from "./lib";

const what = process.argv[2] ?? "submit";
const seconds = Number(process.argv[3] ?? 10);
const dir = process.env.BENCH_PROFILE_DIR ?? join(logDir(), "profile");

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** Self time per function over the samples taken after `skipMs` (start-up and warm-up left out). */
function report(file: string, skipMs: number): void {
  const prof = JSON.parse(readFileSync(file, "utf8")) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  let at = 0;
  prof.samples.forEach((id, i) => {
    at += prof.timeDeltas[i] ?? 0;
    if (at < skipMs * 1000) return;
    self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0));
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const fns = new Map<string, number>();
  const pkgs = new Map<string, number>();
  for (const [id, us] of self) {
    const f = byId.get(id)!.callFrame;
    const pkg =
      /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f.url)?.[1] ??
      (f.url.includes("/.next/") ? "(.next app code)" : f.url.startsWith("node:") ? "node:" : f.url || "(native/gc)");
    pkgs.set(pkg, (pkgs.get(pkg) ?? 0) + us);
    const key = `${f.functionName || "(anon)"} ${f.url.split("/").slice(-2).join("/")}:${f.lineNumber}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
  }
  const top = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, us]) => `${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`);
  console.log(`\nby package (self time, ${(total / 1e6).toFixed(1)} s sampled):\n${top(pkgs, 25).join("\n")}`);
  console.log(`\nby function:\n${top(fns, 40).join("\n")}`);
}

async function main(): Promise<void> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const database = await createTestDatabase();
  await useDatabase(database.url);
  const agents = Array.from({ length: 8 }, (_, i) => `prof/agent-${i}`);
  const { keys } = await provisionAccount("prof", agents);
  const spawned = Date.now();
  const web = await startWeb(
    database.url,
    { MA2H_RATE_LIMIT_PER_MINUTE: "1000000000", MA2H_INBOX_DEPTH: "1000000000", MA2H_BENCH_FLOOR: "1" },
    join(logDir(), "web-profile.log"),
    "server/web.ts",
    ["--cpu-prof", `--cpu-prof-dir=${dir}`],
  );
  const measured = Date.now() + 3000; // drive()'s warm-up
  const r = await drive({
    targets: [{ host: "127.0.0.1", port: web.port }],
    concurrency: 8,
    seconds,
    okStatus: 202,
    cpuPids: [web.pid],
    request: (w, seq) => ({
      method: "POST",
      path: what === "floor" ? "/bench/floor" : "/v1/messages",
      headers: { authorization: `Bearer ${keys[agents[w]!]}`, "content-type": "application/json" },
      body: benchEnvelope(seq % 2 ? "ask" : "notify", agents[w]!, seq, `p${Date.now()}`),
    }),
  });
  console.log(`${what}: ${fmt(summarize(r))}`);
  await web.stop();
  await releaseDatabase();
  await database.drop();
  const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
  if (file) report(join(dir, file), measured - spawned);
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

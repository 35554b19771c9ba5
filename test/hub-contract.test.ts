/**
 * The operational contract of `npm run hub`: PORT, discovery within 60 s of
 * start, idempotent migrations on start (from a plain empty database), SIGTERM → out within 10 s
 * with nothing left behind (also while a long-poll is held, which answers first), refusal without
 * dev mode, /healthz and /readyz — and a 60-second long-poll held through our server.
 *
 * The 60 s long-poll is started in beforeAll and only awaited by the last test, so it runs
 * concurrently with everything else here (Promise.all of two polls) and the file stays fast.
 */
// covers: server/hub.ts, server/web.ts, lib/health.ts, app/healthz/route.ts, app/readyz/route.ts, server/migrate.ts
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { connect } from "node:net";
import { resolve } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, freePort, repoRoot, startHub, type HubOptions, type HubProcess } from "./support/hub";
import { envelope, provisionAccount, type Provisioned } from "./support/provision";
import { useTestDatabase } from "./support/test-database";
import { staysFalse, waitFor } from "./support/wait";

const A = "deploybot/dev-team";
const ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres";
const database = useTestDatabase();
let acme: Provisioned;
let hub: HubProcess;
let startMs: number;
const spawned: HubProcess[] = [];
let longPolls: Promise<Array<{ status: number; body: Record<string, unknown>; ms: number }>>;

async function spawn(options: HubOptions): Promise<HubProcess> {
  const h = await startHub(options);
  spawned.push(h);
  return h;
}

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** Everything still alive in the process group led by `pgid`. */
function groupMembers(pgid: number): string[] {
  const out = execFileSync("ps", ["-e", "-o", "pid=,pgid=,args="]).toString();
  return out
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => Number(l.split(/\s+/)[1]) === pgid);
}

const portOpen = (port: number) =>
  new Promise<boolean>((ok) => {
    const s = connect(port, "127.0.0.1");
    s.once("connect", () => {
      s.destroy();
      ok(true);
    });
    s.once("error", () => ok(false));
  });

async function timed<T>(p: Promise<T>): Promise<T & { ms: number }> {
  const t0 = Date.now();
  const value = await p;
  return { ...value, ms: Date.now() - t0 };
}

beforeAll(async () => {
  acme = await provisionAccount("acme", [A]);
  const t0 = Date.now();
  hub = await spawn({ databaseUrl: database.url, mode: "hub", env: { MA2H_ROUTE_PRELOAD: undefined } });
  startMs = Date.now() - t0;
  const agent = client(hub.url, acme.keys[A]);
  const ask = await agent.post("/v1/messages", envelope("ask", A));
  expect(ask.status).toBe(202);
  // wait=60 and wait=600 (clamped to 60, never rejected), held through server/web.ts.
  longPolls = Promise.all([60, 600].map((w) => timed(agent.get(`/v1/messages/${ask.body.id}?wait=${w}`))));
});

afterAll(async () => {
  await Promise.all(spawned.map((h) => h.stop("SIGKILL")));
});

describe("npm run hub", () => {
  it("honours PORT and answers /.well-known/ma2h within 60 s of start", async () => {
    console.info(`[hub] /.well-known/ma2h answered ${startMs} ms after spawn`);
    expect(startMs).toBeLessThan(60_000);
    const res = await fetch(`http://127.0.0.1:${hub.port}/.well-known/ma2h`);
    expect(res.status).toBe(200);
    expect(hub.output()).toContain(`"url":"http://127.0.0.1:${hub.port}"`);
  });

  it("loads every route after listen by default; MA2H_ROUTE_PRELOAD=0 leaves them to their first request", async () => {
    await waitFor(() => hub.output().includes('"msg":"routes preloaded"'), {
      timeout: 60_000,
      what: "the default Hub's routes preloaded",
    });
    const lazy = await spawn({ databaseUrl: database.url, mode: "web", env: { MA2H_ROUTE_PRELOAD: "0" } });
    // The discovery route answers (loaded on its first request), and nothing else was loaded for it.
    expect((await fetch(`${lazy.url}/.well-known/ma2h`)).status).toBe(200);
    await staysFalse(
      () => lazy.output().includes("routes preloaded"),
      3000,
      "a preload with MA2H_ROUTE_PRELOAD=0",
      250,
    );
  });

  it("/healthz and /readyz answer 200 without credentials", async () => {
    for (const path of ["/healthz", "/readyz"]) {
      const res = await fetch(hub.url + path);
      expect([path, res.status]).toEqual([path, 200]);
      expect((await res.json()).status).toBe("ok");
    }
  });

  it("/healthz names the release and the commit it runs", async () => {
    const { version } = JSON.parse(readFileSync(resolve(repoRoot, "package.json"), "utf8")) as { version: string };
    const commit = execFileSync("git", ["rev-parse", "HEAD"], { cwd: repoRoot, encoding: "utf8" }).trim();
    expect(await (await fetch(`${hub.url}/healthz`)).json()).toEqual({ status: "ok", version, commit });
  });

  it("applies migrations on start on a fresh empty database, idempotently; SIGTERM leaves nothing", async () => {
    const name = `ma2h_fresh_${randomBytes(5).toString("hex")}`;
    await admin(`CREATE DATABASE ${name}`);
    const url = `postgresql://postgres@127.0.0.1:5432/${name}`;
    const migrations = readdirSync(resolve(repoRoot, "prisma/migrations"), { withFileTypes: true }).filter((d) =>
      d.isDirectory(),
    ).length;
    const applied = async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        return (await c.query("SELECT count(*)::int AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL"))
          .rows[0].n as number;
      } finally {
        await c.end();
      }
    };
    try {
      for (const run of [1, 2]) {
        const port = await freePort();
        const fresh = await spawn({ databaseUrl: url, mode: "hub", port });
        expect((await fetch(`${fresh.url}/readyz`)).status).toBe(200);
        expect(await applied()).toBe(migrations);
        const line = fresh
          .output()
          .split("\n")
          .find((l) => l.includes('"msg":"migrations"')) as string;
        expect(JSON.parse(line).applied).toHaveLength(run === 1 ? migrations : 0);
        const stopMs = await fresh.stop("SIGTERM");
        console.info(`[hub] fresh database run ${run}: SIGTERM → exit in ${stopMs} ms`);
        expect(stopMs).toBeLessThan(10_000);
        expect(await fresh.exited).toBe(0);
        expect(groupMembers(fresh.child.pid as number)).toEqual([]);
        expect(await portOpen(port)).toBe(false);
      }
    } finally {
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  });

  it("on SIGTERM a held ?wait=50 long-poll answers 200 open at once, and the hub exits within 10 s", async () => {
    const other = await spawn({ databaseUrl: database.url, mode: "hub" });
    const agent = client(other.url, acme.keys[A]);
    const ask = await agent.post("/v1/messages", envelope("ask", A));
    const t0 = Date.now();
    const poll = agent.get(`/v1/messages/${ask.body.id}?wait=50`).then((r) => ({ ...r, at: Date.now() }));
    await new Promise((ok) => setTimeout(ok, 1500)); // held by now
    const signalled = Date.now();
    const stopped = other.stop("SIGTERM");
    const res = await poll;
    const stopMs = await stopped;
    console.info(
      `[hub] long-poll answered ${res.at - signalled} ms after SIGTERM (held ${signalled - t0} ms); hub exited in ${stopMs} ms`,
    );
    expect([res.status, res.body.status, res.body.id]).toEqual([200, "open", ask.body.id]);
    expect(res.at - signalled).toBeLessThan(3000);
    expect(stopMs).toBeLessThan(10_000);
    expect(groupMembers(other.child.pid as number)).toEqual([]);
    expect(await portOpen(other.port)).toBe(false);
  });

  it("refuses to start without MA2H_DEV_MODE, saying why, with a non-zero exit", async () => {
    const runs = await Promise.all(
      (["hub", "web"] as const).map((mode) =>
        spawn({ databaseUrl: database.url, mode, env: { MA2H_DEV_MODE: undefined }, waitReady: false }),
      ),
    );
    for (const run of runs) {
      const code = await run.exited;
      expect([run.mode, code === 0 || code === null]).toEqual([run.mode, false]);
      expect(run.output()).toMatch(/Refusing to start: plaintext HTTP .*MA2H_DEV_MODE=1/);
    }
  });

  it("a web process on a database that does not exist: /healthz 200, /readyz 503", async () => {
    const missing = `postgresql://postgres@127.0.0.1:5432/ma2h_missing_${randomBytes(5).toString("hex")}`;
    const web = await spawn({ databaseUrl: missing, mode: "web" });
    const health = await fetch(`${web.url}/healthz`);
    expect(health.status).toBe(200);
    const ready = await fetch(`${web.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: "unavailable", checks: { database: "unavailable" } });
    expect(web.output()).toContain("database unavailable at start");
  });

  it("holds a 60-second long-poll through the server and answers 200 open after ≈60 s", async () => {
    const results = await longPolls;
    for (const r of results) {
      console.info(`[hub] long-poll answered after ${r.ms} ms`);
      expect([r.status, r.body.status]).toEqual([200, "open"]);
      expect(r.ms).toBeGreaterThanOrEqual(59_000);
      expect(r.ms).toBeLessThan(66_000);
    }
    const stopMs = await hub.stop("SIGTERM");
    console.info(`[hub] main hub: SIGTERM → exit in ${stopMs} ms`);
    expect(stopMs).toBeLessThan(10_000);
    expect([hub.child.exitCode, hub.child.signalCode], hub.output().slice(-4000)).toEqual([0, null]);
    expect(groupMembers(hub.child.pid as number), hub.output().slice(-4000)).toEqual([]);
  });
});

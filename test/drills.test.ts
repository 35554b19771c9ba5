/**
 * The upgrade and backup drills of docs/DEPLOYMENT.md on one database fill (one file: the fill is the
 * slow part).
 *
 * Upgrade: the previous release (test/support/previous-release.ts) migrates a new database with its
 * own migrations, is provisioned with its own admin CLI and fills the database through its own web
 * process — notify, open asks and a task, an answered ask, push asks answered with no worker running
 * (queued pushes), a directive, a session, and the audit chain all of that writes. Then HEAD's
 * `npm run db:migrate` runs while that old web keeps serving, under load (the documented rolling
 * order: migrate first, then roll the processes). Every row there before is still there (by primary
 * key, and unchanged in the tables of record); the old web answers every request during and after
 * the migration with a success or a §8.5 error envelope, never a crash, and stops cleanly.
 *
 * Backup and restore: HEAD's `ma2h-hub backup` of that database, `ma2h-hub restore` into a new one,
 * every table of the Hub identical; `npm run db:migrate` on it; a HEAD web + worker on it serve the
 * same items, deliver each queued push exactly once, and `ma2h-hub audit verify` passes.
 */
// covers: lib/backup/dump.ts, lib/backup/restore.sql.ts, cli/backup-commands.ts, test/support/previous-release.ts, docs/DEPLOYMENT.md
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmptyDatabase, createTestDatabase } from "./support/database";
import { envelope } from "./support/envelope";
import {
  freePort,
  hubEnv,
  repoRoot,
  startHub,
  TEST_AUTH_SECRET,
  waitForReady,
  watchHub,
  type HubProcess,
} from "./support/hub";
import { startWorker } from "./support/push-kit";
import { type Receiver, startReceiver } from "./support/receiver";
import { type PreviousTree, previousTree } from "./support/previous-release";
import { waitFor } from "./support/wait";
import { spawn } from "node:child_process";

type Json = Record<string, any>;
type Db = { url: string; drop(): Promise<void> };

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(cmd, args, { cwd, env, timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

const cliEnv = (databaseUrl: string): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  NODE_ENV: "production",
  DATABASE_URL: databaseUrl,
  AUTH_SECRET: TEST_AUTH_SECRET,
  LOG_LEVEL: "silent",
});

/** `ma2h-hub … --json` of a tree (the previous release's or this one), which must succeed. */
async function cli(root: string, databaseUrl: string, ...args: string[]): Promise<Json> {
  const r = await run(process.execPath, ["bin/ma2h-hub.js", ...args, "--json"], root, cliEnv(databaseUrl));
  if (r.code !== 0) throw new Error(`ma2h-hub ${args.join(" ")} (${root}): ${r.code}\n${r.stdout}${r.stderr}`);
  return JSON.parse(r.stdout) as Json;
}

/** One connection per database for the whole file (opened on first use, closed by afterAll). */
const connections = new Map<string, Promise<pg.Client>>();
async function query<T = Json>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  let client = connections.get(url);
  if (!client) {
    const c = new pg.Client({ connectionString: url });
    client = c.connect().then(() => c);
    connections.set(url, client);
  }
  return (await (await client).query(sql, params)).rows as T[];
}

const tablesOf = async (url: string) =>
  (
    await query<{ t: string }>(
      url,
      "SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY 1",
    )
  ).map((r) => r.t);

/** Each table's row count and a digest of all its rows (as text, sorted). */
async function fingerprint(url: string): Promise<Record<string, { rows: number; md5: string }>> {
  const out: Record<string, { rows: number; md5: string }> = {};
  for (const t of await tablesOf(url)) {
    const [r] = await query<{ rows: number; md5: string }>(
      url,
      `SELECT count(*)::int AS rows, md5(coalesce(string_agg(x::text, E'\\n' ORDER BY x::text), '')) AS md5 FROM public."${t}" x`,
    );
    out[t] = r!;
  }
  return out;
}

/** The primary-key columns of each table that has one. */
async function primaryKeys(url: string): Promise<Record<string, string[]>> {
  const rows = await query<{ t: string; cols: string[] }>(
    url,
    `SELECT c.relname AS t, array_agg(a.attname ORDER BY k.ord)::text[] AS cols
       FROM pg_index i
       JOIN pg_class c ON c.oid = i.indrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
       CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
      WHERE i.indisprimary
      GROUP BY c.relname`,
  );
  return Object.fromEntries(rows.map((r) => [r.t, r.cols]));
}

/** A reply is soft when it is a success or a §8.5 error envelope: never a dropped connection or a bare 500. */
function soft(status: number, body: unknown): boolean {
  if (status >= 200 && status < 300) return true;
  const error = (body as { error?: { code?: unknown } } | null)?.error;
  return typeof error?.code === "string";
}

let prev: PreviousTree;
let source: Db;
let restored: Db;
let receiver: Receiver;
let dumpDir: string;
let oldWeb: HubProcess | undefined;
const stops: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  [prev, receiver, restored] = await Promise.all([previousTree(), startReceiver(), createEmptyDatabase()]);
  dumpDir = mkdtempSync(join(tmpdir(), "ma2h-backup-"));
  // The previous release's schema: its own migrations. When they are this checkout's (no migration
  // since), the migrated template the other test files clone is that very schema.
  const sameMigrations =
    JSON.stringify(
      prev.migrations.map((m) => readFileSync(join(prev.dir, "prisma/migrations", m, "migration.sql"), "utf8")),
    ) ===
    JSON.stringify(
      readdirSync(join(repoRoot, "prisma/migrations"))
        .filter((m) => /^\d/.test(m))
        .map((m) => readFileSync(join(repoRoot, "prisma/migrations", m, "migration.sql"), "utf8")),
    );
  if (sameMigrations) source = await createTestDatabase();
  else {
    source = await createEmptyDatabase();
    const r = await run(process.execPath, ["bin/run.mjs", "migrate", "deploy"], prev.dir, cliEnv(source.url));
    if (r.code !== 0) throw new Error(`the previous release's migrations: ${r.stdout}${r.stderr}`);
  }
});

afterAll(async () => {
  for (const c of connections.values()) await (await c).end().catch(() => {});
  for (const stop of stops.reverse()) await stop().catch(() => {});
  await oldWeb?.stop();
  await receiver?.close();
  await Promise.all([source?.drop(), restored?.drop()]);
  prev?.remove();
  if (dumpDir) rmSync(dumpDir, { recursive: true, force: true });
});

/** The previous release's web, from its sources, on `port`. */
async function startOldWeb(databaseUrl: string, port: number, env: Record<string, string>): Promise<HubProcess> {
  const child = spawn(process.execPath, ["--liftoff-only", "--import", "tsx", join(prev.dir, "server/web.ts")], {
    cwd: prev.dir,
    env: { ...hubEnv(databaseUrl, port, env), TSX_TSCONFIG_PATH: join(prev.dir, "tsconfig.json") },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const hub = watchHub(child, "web", port);
  await waitForReady(hub);
  return hub;
}

const request = async (base: string, method: string, path: string, auth: string, body?: unknown) => {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${auth}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : null };
};

describe("the upgrade drill, then the backup and restore drill, on one fill", () => {
  const items: Record<string, Json> = {};
  const queued: string[] = [];
  let key = "";
  let token = "";

  it("the previous release fills a database with every kind of work", async () => {
    // Provisioned by the previous release's own CLI, while its web starts.
    const starting = freePort().then((port) =>
      startOldWeb(source.url, port, {
        MA2H_DEV_CALLBACK_ALLOWLIST: receiver.origin,
        MA2H_RATE_LIMIT_PER_MINUTE: "100000",
      }),
    );
    void starting.then(
      (web) => (oldWeb = web),
      () => {},
    ); // stopped by afterAll even if provisioning fails
    await cli(prev.dir, source.url, "account", "create", "acme");
    const [bot] = await Promise.all([
      cli(prev.dir, source.url, "agent", "create", "bot", "--account", "acme"),
      cli(
        prev.dir,
        source.url,
        "user",
        "add",
        "alice@acme.test",
        "--account",
        "acme",
        "--handle",
        "alice",
        "--role",
        "owner",
      ),
    ]);
    key = bot.api_key;
    const [tok] = await Promise.all([
      cli(prev.dir, source.url, "token", "create", "--user", "alice@acme.test"),
      cli(
        prev.dir,
        source.url,
        "binding",
        "add",
        "--agent",
        "bot",
        "--account",
        "acme",
        "--origin",
        receiver.origin,
        "--secret-ref",
        "cb",
        "--secret",
        "drill-callback-secret",
      ),
    ]);
    token = tok.token;
    oldWeb = await starting;
    const url = oldWeb.url;
    const submit = async (name: string, type: "notify" | "ask" | "task", over: Json = {}) => {
      const r = await request(url, "POST", "/v1/messages", key, envelope(type, "bot", over));
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      items[name] = { id: r.body!.id };
      return r.body!.id as string;
    };
    await submit("notify", "notify");
    await submit("open ask", "ask");
    await submit("open task", "task");
    const answered = await submit("answered ask", "ask");
    expect(
      (await request(url, "POST", `/v1/messages/${answered}/resolve`, token, { resolution: "answered", value: "ship" }))
        .status,
    ).toBe(200);
    for (const n of [1, 2]) {
      const base = envelope("ask", "bot");
      base.request = {
        ...(base.request as Json),
        callback: { mode: "push", url: `${receiver.origin}/hook/${n}`, auth: { scheme: "hmac", secret_ref: "cb" } },
      };
      const r = await request(url, "POST", "/v1/messages", key, base);
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      items[`pushed ask ${n}`] = { id: r.body!.id };
      queued.push(r.body!.id);
      expect(
        (
          await request(url, "POST", `/v1/messages/${r.body!.id}/resolve`, token, {
            resolution: "answered",
            value: "hold",
          })
        ).status,
      ).toBe(200);
    }
    const directive = await request(url, "POST", "/v1/directives", token, {
      to: "agent:bot",
      title: "Rotate the keys",
    });
    expect(directive.status, JSON.stringify(directive.body)).toBe(201);
    const session = await request(url, "POST", "/v1/sessions", key, {});
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    // How each item reads now, through the previous release's lane.
    for (const item of Object.values(items)) {
      const r = await request(url, "GET", `/v1/messages/${item.id}`, key);
      expect(r.status).toBe(200);
      item.status = r.body!.status;
      item.resolution = JSON.stringify(r.body!.response ?? null);
    }
    expect(items["answered ask"]!.status).toBe("answered");
    expect(items["open ask"]!.status).toBe("open");
    expect(items["answered ask"]!.resolution).toMatch(/"ship".*|human:alice/);
    expect(items["answered ask"]!.resolution).toContain("human:alice");

    const counts = await query<{ t: string; n: number }>(
      source.url,
      `SELECT 'messages' AS t, count(*)::int AS n FROM messages UNION ALL SELECT 'resolutions', count(*)::int FROM resolutions
       UNION ALL SELECT 'push_deliveries', count(*)::int FROM push_deliveries WHERE delivered_at IS NULL
       UNION ALL SELECT 'mailbox_entries', count(*)::int FROM mailbox_entries UNION ALL SELECT 'agent_sessions', count(*)::int FROM agent_sessions
       UNION ALL SELECT 'audit_events', count(*)::int FROM audit_events`,
    );
    const n = Object.fromEntries(counts.map((c) => [c.t, c.n]));
    expect(n).toMatchObject({ messages: 6, resolutions: 3, push_deliveries: 2, mailbox_entries: 1, agent_sessions: 1 });
    expect(n.audit_events).toBeGreaterThan(5);
    expect(receiver.requests).toHaveLength(0); // no worker yet: the pushes wait
  });

  it("HEAD's npm run db:migrate while the old web serves: nothing lost, the old web fails soft", async () => {
    const url = oldWeb!.url;
    const tables = await tablesOf(source.url);
    const keys = await primaryKeys(source.url);
    const before = await fingerprint(source.url);
    // A copy of every row, to find each one again after the migration.
    await query(source.url, "CREATE SCHEMA drill_before");
    for (const t of tables) await query(source.url, `CREATE TABLE drill_before."${t}" AS TABLE public."${t}"`);

    // Load on the old web for as long as the migration runs.
    const replies: { status: number; body: unknown }[] = [];
    let migrating = true;
    const load = (async () => {
      while (migrating) {
        const sent = await request(url, "POST", "/v1/messages", key, envelope("ask", "bot")).catch(() => ({
          status: 0,
          body: null,
        }));
        replies.push(sent);
        if (sent.status === 202)
          replies.push(
            await request(url, "GET", `/v1/messages/${(sent.body as Json).id}`, key).catch(() => ({
              status: 0,
              body: null,
            })),
          );
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const t0 = Date.now();
    const migrated = await run("npm", ["run", "db:migrate"], repoRoot, { ...cliEnv(source.url), LOG_LEVEL: "info" });
    const migrateMs = Date.now() - t0;
    migrating = false;
    await load;
    expect(migrated.code, migrated.stdout + migrated.stderr).toBe(0);
    expect(replies.length).toBeGreaterThan(0);
    for (const r of replies) expect(soft(r.status, r.body), JSON.stringify(r)).toBe(true);

    // After it: the old web still submits, polls and resolves.
    const after = await request(url, "POST", "/v1/messages", key, envelope("ask", "bot"));
    expect(after.status).toBe(202);
    expect(
      (
        await request(url, "POST", `/v1/messages/${after.body!.id}/resolve`, token, {
          resolution: "answered",
          value: "ship",
        })
      ).status,
    ).toBe(200);
    expect((await request(url, "GET", `/v1/messages/${after.body!.id}`, key)).body!.status).toBe("answered");
    for (const item of Object.values(items)) {
      const r = await request(url, "GET", `/v1/messages/${item.id}`, key);
      expect([r.body!.status, JSON.stringify(r.body!.response ?? null)]).toEqual([item.status, item.resolution]);
    }

    // Every row there before is there now: by primary key in every table, unchanged in the tables of
    // record (the columns the previous release had).
    for (const t of tables) {
      const k = keys[t];
      const missing = k
        ? await query<{ n: number }>(
            source.url,
            `SELECT count(*)::int AS n FROM drill_before."${t}" b WHERE NOT EXISTS (SELECT 1 FROM public."${t}" p WHERE ${k.map((c) => `p."${c}" IS NOT DISTINCT FROM b."${c}"`).join(" AND ")})`,
          )
        : [
            {
              n: Math.max(
                0,
                before[t]!.rows -
                  (await query<{ n: number }>(source.url, `SELECT count(*)::int AS n FROM public."${t}"`))[0]!.n,
              ),
            },
          ];
      expect(missing[0]!.n, `${t}: rows lost`).toBe(0);
    }
    // (agents and sessions carry presence stamps each request renews: found by key above.)
    for (const t of [
      "messages",
      "resolutions",
      "push_deliveries",
      "mailbox_entries",
      "memberships",
      "callback_bindings",
    ]) {
      const cols = (
        await query<{ c: string }>(
          source.url,
          "SELECT column_name AS c FROM information_schema.columns WHERE table_schema = 'drill_before' AND table_name = $1",
          [t],
        )
      )
        .map((r) => `"${r.c}"`)
        .join(", ");
      const changed = await query<{ n: number }>(
        source.url,
        `SELECT count(*)::int AS n FROM (SELECT ${cols} FROM drill_before."${t}" EXCEPT ALL SELECT ${cols} FROM public."${t}") d`,
      );
      expect(changed[0]!.n, `${t}: rows changed`).toBe(0);
    }
    await query(source.url, "DROP SCHEMA drill_before CASCADE");
    console.info(`db:migrate under load: ${migrateMs} ms, ${replies.length} replies from the old web, all soft`);

    // The old web stops cleanly (the roll's next step: replace it).
    await oldWeb!.stop();
    expect(await oldWeb!.exited).toBe(0);
  });

  it("backup, restore into a new database: identical; a HEAD Hub on it serves the same items, pushes once, the audit chain verifies", async () => {
    await oldWeb?.stop(); // stopped by the drill above unless it failed
    const file = join(dumpDir, "hub.dump");
    const backup = await cli(repoRoot, source.url, "backup", file);
    expect(backup.backup).toMatchObject({ file, format: "custom" });
    expect(backup.backup.bytes).toBeGreaterThan(10_000);
    // A restore never lands on a database that has tables.
    const refused = await run(
      process.execPath,
      ["bin/ma2h-hub.js", "restore", file, "--json"],
      repoRoot,
      cliEnv(source.url),
    );
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stdout).error.message).toMatch(/empty database/);

    const restore = await cli(repoRoot, restored.url, "restore", file);
    expect(restore.restore.tables).toBeGreaterThan(40);
    const [a, b] = await Promise.all([fingerprint(source.url), fingerprint(restored.url)]);
    expect(Object.keys(b).filter((t) => JSON.stringify(a[t]) !== JSON.stringify(b[t]))).toEqual([]);
    expect(Object.keys(b)).toEqual(Object.keys(a));
    const migrations = (url: string) =>
      query(url, "SELECT migration_name, checksum FROM _prisma_migrations ORDER BY 1");
    expect(await migrations(restored.url)).toEqual(await migrations(source.url));
    // The queue schema is left out: the worker rebuilds its jobs from the rows.
    expect(await query(restored.url, "SELECT 1 FROM pg_namespace WHERE nspname = 'bullmq'")).toHaveLength(0);
    const migrated = await run("npm", ["run", "db:migrate"], repoRoot, { ...cliEnv(restored.url), LOG_LEVEL: "info" });
    expect(migrated.code, migrated.stdout + migrated.stderr).toBe(0);

    const env = {
      MA2H_DEV_CALLBACK_ALLOWLIST: receiver.origin,
      MA2H_DELIVERY_SWEEP_MS: "300",
      MA2H_PUSH_BASE_DELAY_MS: "200",
    };
    const [web, worker] = await Promise.all([
      startHub({ databaseUrl: restored.url, env }),
      startWorker(restored.url, env),
    ]);
    stops.push(
      () => web.stop(),
      () => worker.stop(),
    );
    for (const item of Object.values(items)) {
      const r = await request(web.url, "GET", `/v1/messages/${item.id}`, key);
      expect(r.status).toBe(200);
      expect([r.body!.status, JSON.stringify(r.body!.response ?? null)]).toEqual([item.status, item.resolution]);
    }
    // Each queued push arrives once, and no second time over several sweep periods.
    await waitFor(() => receiver.requests.length >= queued.length, {
      timeout: 20_000,
      what: `the queued pushes\n${worker.output()}`,
    });
    await waitFor(
      async () =>
        (
          await query<{ n: number }>(
            restored.url,
            "SELECT count(*)::int AS n FROM push_deliveries WHERE delivered_at IS NULL",
          )
        )[0]!.n === 0,
      { timeout: 10_000 },
    );
    await new Promise((r) => setTimeout(r, 1500));
    const pushed = receiver.requests.map((r) => (JSON.parse(r.body) as Json).in_reply_to as string).sort();
    expect(pushed).toEqual([...queued].sort());

    const verify = await run(
      process.execPath,
      ["bin/ma2h-hub.js", "audit", "verify", "--json"],
      repoRoot,
      cliEnv(restored.url),
    );
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    expect(JSON.parse(verify.stdout)).toMatchObject({ first_broken: null });
    expect(JSON.parse(verify.stdout).verified).toBeGreaterThan(5);
  });
});

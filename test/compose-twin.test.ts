/**
 * The process-level twin of compose.yaml (no container runs on this machine): its services started as
 * local processes in compose's start order (depends_on and its conditions), each Hub service with the
 * environment its container would get — the image's ENV, then the env file (a copy of .env.example
 * with the secrets filled in), then the service's `environment` interpolated from that file — and its
 * command run through the image's entry point (deploy/entrypoint.sh). Only the addresses differ, each
 * mapped and checked: the `postgres` host becomes a fresh empty database of the local PostgreSQL, the
 * `redis` host the local Redis, HOST 0.0.0.0 loopback and PORT a free port. PostgreSQL and Redis gate
 * on their own healthcheck commands; the migration runs once and exits 0; the web gates on the
 * image's HEALTHCHECK command; then the worker. End to end: the admin CLI through the entry point, an
 * ask answered, an ask expired by the worker through Redis, the proxy rule the compose file sets, and
 * a clean SIGTERM stop of each.
 */
// covers: compose.yaml, Dockerfile, deploy/entrypoint.sh, deploy/healthcheck.mjs, .env.example
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmptyDatabase } from "./support/database";
import { compose, dockerfile, envFile, envPairs, execForm, interpolate } from "./support/deploy-files";
import { envelope } from "./support/envelope";
import { freePort, repoRoot, TEST_AUTH_SECRET } from "./support/hub";
import { waitFor } from "./support/wait";

type Env = Record<string, string>;
const services = compose().services as Record<string, any>;
const df = dockerfile();
const runtime = df.stages.at(-1)!;
const healthcheck = runtime.instructions.filter((i) => i.op === "HEALTHCHECK").at(-1)!.args;
const ENTRYPOINT = join(
  repoRoot,
  execForm(runtime.instructions.find((i) => i.op === "ENTRYPOINT")!.args)[0]!.replace(/^\/app\//, ""),
);

/** depends_on as compose orders it: every service after what it depends on (names sorted within a rank). */
function startOrder(): string[] {
  const order: string[] = [];
  const pending = new Set(Object.keys(services).sort());
  while (pending.size) {
    const ready = [...pending].filter((s) => Object.keys(services[s].depends_on ?? {}).every((d) => order.includes(d)));
    if (!ready.length) throw new Error("depends_on has a cycle");
    for (const s of ready) {
      order.push(s);
      pending.delete(s);
    }
  }
  return order;
}

function run(cmd: string, args: string[], env: Env): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd: repoRoot, env: env as NodeJS.ProcessEnv, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

interface Started {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

function start(env: Env, command: string): Started {
  const child = spawn(ENTRYPOINT, [command], {
    cwd: repoRoot,
    env: env as NodeJS.ProcessEnv,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
  return { child, output: () => out, exited: new Promise((ok) => child.on("close", (code) => ok(code))) };
}

async function stop(p: Started): Promise<{ code: number | null; ms: number }> {
  const t0 = Date.now();
  try {
    process.kill(-(p.child.pid as number), "SIGTERM");
  } catch {
    /* gone */
  }
  const code = await p.exited;
  return { code, ms: Date.now() - t0 };
}

let database: Awaited<ReturnType<typeof createEmptyDatabase>>;
let dir: string;
let port: number;
let vars: Env;
const running: Started[] = [];
const base = () => `http://127.0.0.1:${port}`;
const https = { "x-forwarded-proto": "https" };

/** The environment of a Hub service, as its container gets it, then the twin's address mapping. */
function serviceEnv(name: string): Env {
  const image = Object.assign({}, ...runtime.instructions.filter((i) => i.op === "ENV").map((i) => envPairs(i.args)));
  for (const k of Object.keys(image)) image[k] = interpolate(image[k], {}); // build args: none given
  const fromFile: Env = {};
  for (const f of services[name].env_file as string[])
    Object.assign(fromFile, envFile(readFileSync(join(dir, f), "utf8")));
  const own = Object.fromEntries(
    Object.entries(services[name].environment as Env).map(([k, v]) => [k, interpolate(String(v), vars)]),
  );
  const env: Env = { ...image, ...fromFile, ...own };
  // The container addresses → this machine's; each checked first, so a compose edit is noticed.
  const dbUrl = new URL(env.DATABASE_URL!);
  expect([dbUrl.hostname, dbUrl.port, dbUrl.pathname, decodeURIComponent(dbUrl.password)]).toEqual([
    "postgres",
    "5432",
    "/ma2h",
    vars.POSTGRES_PASSWORD,
  ]);
  expect(env.REDIS_URL).toBe("redis://redis:6379");
  expect([env.HOST, env.PORT]).toEqual(["0.0.0.0", "3000"]);
  return {
    ...env,
    DATABASE_URL: database.url,
    REDIS_URL: "redis://127.0.0.1:6379",
    HOST: "127.0.0.1",
    PORT: String(port),
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    LOG_LEVEL: "info",
  };
}

beforeAll(async () => {
  database = await createEmptyDatabase();
  dir = mkdtempSync(join(tmpdir(), "ma2h-compose-"));
  port = await freePort();
  // The operator's step: cp .env.example .env, then fill in the secrets and the public URL.
  const example = readFileSync(join(repoRoot, ".env.example"), "utf8");
  const filled = {
    AUTH_SECRET: TEST_AUTH_SECRET,
    POSTGRES_PASSWORD: "twin-pg-password",
    MA2H_PUBLIC_URL: `http://127.0.0.1:${port}`,
  };
  writeFileSync(
    join(dir, ".env"),
    `${example}\n${Object.entries(filled)
      .map(([k, v]) => `${k}=${v}`)
      .join("\n")}\n`,
  );
  vars = envFile(readFileSync(join(dir, ".env"), "utf8"));
});

afterAll(async () => {
  await Promise.all(running.map(stop));
  await database?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("compose.yaml as local processes", () => {
  it("starts in compose's order, each gate passed as compose would check it, and serves end to end", async () => {
    const order = startOrder();
    expect(order).toEqual(["postgres", "redis", "migrate", "web", "worker"]);

    // postgres, redis: their own healthcheck commands, pointed at this machine's servers.
    for (const name of ["postgres", "redis"]) {
      const [kind, cmd, ...args] = services[name].healthcheck.test as string[];
      expect(kind).toBe("CMD");
      const r = await run(cmd!, ["-h", "127.0.0.1", ...args], { PATH: process.env.PATH ?? "" });
      expect(r.code, `${name} healthcheck: ${r.stdout}${r.stderr}`).toBe(0);
    }

    // migrate: one-shot, must complete successfully before web and worker.
    const migrateEnv = serviceEnv("migrate");
    const migrated = await run(ENTRYPOINT, services.migrate.command, migrateEnv);
    expect(migrated.code, migrated.stdout + migrated.stderr).toBe(0);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const applied = await client.query(
        "SELECT count(*)::int AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL",
      );
      expect(applied.rows[0].n).toBeGreaterThan(30);
    } finally {
      await client.end();
    }

    // web: healthy once the image's HEALTHCHECK command passes (its interval shortened here).
    const webEnv = serviceEnv("web");
    const web = start(webEnv, services.web.command[0]);
    running.push(web);
    const [hcCmd, ...hcArgs] = execForm(healthcheck.slice(healthcheck.indexOf("CMD") + 3).trim());
    await waitFor(async () => (await run(hcCmd === "node" ? process.execPath : hcCmd!, hcArgs, webEnv)).code === 0, {
      timeout: 60_000,
      every: 250,
      what: `the web's HEALTHCHECK\n${web.output()}`,
    });

    // worker: after the web is healthy.
    const worker = start(serviceEnv("worker"), services.worker.command[0]);
    running.push(worker);
    await waitFor(() => worker.output().includes('"msg":"worker running"'), {
      timeout: 60_000,
      what: `the worker\n${worker.output()}`,
    });

    // The admin CLI through the same entry point and environment.
    const cli = async (...args: string[]) => {
      const r = await run(ENTRYPOINT, ["ma2h-hub", ...args, "--json"], { ...migrateEnv, LOG_LEVEL: "silent" });
      expect(r.code, `${args.join(" ")}: ${r.stdout}${r.stderr}`).toBe(0);
      return JSON.parse(r.stdout) as Record<string, any>;
    };
    await cli("account", "create", "twin");
    const [agent] = await Promise.all([
      cli("agent", "create", "twin-bot", "--account", "twin"),
      cli("user", "add", "ann@twin.test", "--account", "twin", "--handle", "ann", "--role", "owner"),
    ]);
    const token = (await cli("token", "create", "--user", "ann@twin.test")).token as string;
    const key = agent.api_key as string;

    // The proxy rule compose sets (MA2H_TRUST_PROXY=1): without X-Forwarded-Proto: https, 403.
    expect((await fetch(`${base()}/readyz`)).status).toBe(403);
    expect((await fetch(`${base()}/readyz`, { headers: https })).status).toBe(200);

    const post = (path: string, auth: string, body: unknown) =>
      fetch(base() + path, {
        method: "POST",
        headers: { ...https, authorization: `Bearer ${auth}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const submitted = await post("/v1/messages", key, envelope("ask", "twin-bot"));
    expect(submitted.status).toBe(202);
    const answeredId = ((await submitted.json()) as { id: string }).id;
    const expiring = await post(
      "/v1/messages",
      key,
      envelope("ask", "twin-bot", { expires_at: new Date(Date.now() + 2000).toISOString() }),
    );
    expect(expiring.status).toBe(202);
    const expiringId = ((await expiring.json()) as { id: string }).id;
    expect(
      (await post(`/v1/messages/${answeredId}/resolve`, token, { resolution: "answered", value: "ship" })).status,
    ).toBe(200);
    const read = async (id: string) =>
      (await (
        await fetch(`${base()}/v1/messages/${id}`, { headers: { ...https, authorization: `Bearer ${key}` } })
      ).json()) as {
        status: string;
      };
    expect((await read(answeredId)).status).toBe("answered");

    // The worker expires the other through its Redis queue, with no request to the web about it.
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      await waitFor(
        async () =>
          (await db.query("SELECT status FROM messages WHERE id = $1", [expiringId])).rows[0]?.status === "expired",
        { timeout: 20_000, what: `expiry by the worker\n${worker.output()}` },
      );
    } finally {
      await db.end();
    }
    expect((await read(expiringId)).status).toBe("expired");
    const keys = await run("redis-cli", ["-h", "127.0.0.1", "--scan", "--pattern", "ma2h-*"], {
      PATH: process.env.PATH ?? "",
    });
    expect(keys.stdout.split("\n").filter(Boolean).length, "BullMQ keys in Redis").toBeGreaterThan(0);

    // SIGTERM, as `docker compose stop` sends it: each exits 0 within 10 s.
    for (const p of [worker, web]) {
      const { code, ms } = await stop(p);
      expect(code, p.output()).toBe(0);
      expect(ms).toBeLessThan(10_000);
    }
  });
});

/**
 * The tamper-evident audit trail (#19), against real PostgreSQL and a real worker process: rows are
 * sealed off the request path within 5 s; TRUNCATE, UPDATE and DELETE are refused with no bypass; a
 * row edited as the table's owner is named by `ma2h-hub audit verify`, live and in an export; a
 * purge leaves a tombstone and other chains intact; concurrent sealers never fork a chain.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUDIT_GENESIS, chainHash } from "../lib/audit/chain";
import { AUDIT_EVENT } from "../lib/audit/events";
import { auditJsonLines } from "../lib/audit/log";
import { sealPending } from "../lib/audit/seal";
import { verifyJsonLines } from "../lib/audit/verify";
import { writeAudit, writePersonAudit } from "../lib/audit/write";
import { db } from "../lib/db";
import { repoRoot, startHub, TEST_AUTH_SECRET, type HubProcess } from "./support/hub";
import { provisionAccount } from "./support/provision";
import { useTestDatabase } from "./support/test-database";

const database = useTestDatabase();
let worker: HubProcess | undefined;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  json: Record<string, any>;
}

function cli(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["bin/ma2h-hub.js", ...args, "--json"],
      {
        cwd: repoRoot,
        env: { ...process.env, DATABASE_URL: database.url, AUTH_SECRET: TEST_AUTH_SECRET },
        timeout: 60_000,
      },
      (err, stdout, stderr) => {
        const code = err ? ((err as { code?: number }).code ?? 1) : 0;
        let json: Record<string, any> = {};
        try {
          json = JSON.parse(stdout);
        } catch {
          json = { unparseable: stdout };
        }
        resolve({ code, stdout, stderr, json });
      },
    );
  });
}

/** A statement as the superuser that owns the tables (the test database's owner). */
async function sql(text: string, params: unknown[] = []): Promise<any[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows;
  } finally {
    await client.end();
  }
}

async function accountId(slug: string): Promise<string> {
  return (await db().account.findUniqueOrThrow({ where: { slug }, select: { id: true } })).id;
}

async function writeRows(slug: string, n: number, actor = "human:test"): Promise<bigint[]> {
  const id = await accountId(slug);
  await db().$transaction((tx) =>
    writeAudit(
      tx,
      Array.from({ length: n }, (_, i) => ({
        accountId: id,
        actor,
        event: AUDIT_EVENT.keyRotated,
        detail: { agent_id: `a${i}`, n: i },
      })),
    ),
  );
  const rows = await db().auditEvent.findMany({
    where: { accountId: id },
    orderBy: { id: "desc" },
    take: n,
    select: { id: true },
  });
  return rows.map((r) => r.id).reverse();
}

async function waitSealed(ids: bigint[], withinMs: number): Promise<number> {
  const t0 = Date.now();
  for (;;) {
    const open = await db().auditEvent.count({ where: { id: { in: ids }, hash: null } });
    if (open === 0) return Date.now() - t0;
    if (Date.now() - t0 > withinMs) throw new Error(`${open} row(s) unsealed after ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function exportFile(slug: string): Promise<string> {
  let text = "";
  for await (const line of auditJsonLines(await accountId(slug), {})) text += line;
  const dir = await mkdtemp(join(tmpdir(), "ma2h-audit-"));
  const file = join(dir, `${slug}.jsonl`);
  await writeFile(file, text);
  return file;
}

beforeAll(async () => {
  await provisionAccount("acme", ["deploybot"], [{ handle: "alice", role: "owner" }]);
  await provisionAccount("tampered", ["bot"], [{ handle: "tina", role: "owner" }]);
  await provisionAccount("doomed", ["bot"], [{ handle: "dora", role: "owner" }]);
  worker = await startHub({ databaseUrl: database.url, mode: "worker" });
  const deadline = Date.now() + 60_000;
  while (!worker.output().includes("worker running")) {
    if (Date.now() > deadline || worker.child.exitCode !== null) throw new Error(worker.output());
    await new Promise((r) => setTimeout(r, 100));
  }
}, 90_000);

afterAll(async () => {
  await worker?.stop();
});

describe("sealing", () => {
  it("seals committed rows of an account and of a person's stream within 5 s, in id order, linked from the genesis", async () => {
    const ids = await writeRows("acme", 5);
    const user = await db().user.findFirstOrThrow({ where: { email: "alice@acme.test" }, select: { id: true } });
    await db().$transaction((tx) =>
      writePersonAudit(tx, { userId: user.id, actor: `user:${user.id}`, event: AUDIT_EVENT.tokenCreated }),
    );
    const person = await db().auditEvent.findFirstOrThrow({ where: { userId: user.id }, orderBy: { id: "desc" } });
    expect(await waitSealed([...ids, person.id], 5000)).toBeLessThan(5000);

    const acme = await accountId("acme");
    const chain = await db().auditEvent.findMany({ where: { accountId: acme }, orderBy: { seq: "asc" } });
    expect(chain.map((r) => Number(r.seq))).toEqual(chain.map((_, i) => i + 1));
    expect(chain.map((r) => r.id)).toEqual([...chain.map((r) => r.id)].sort((a, b) => (a < b ? -1 : 1)));
    expect(chain[0]!.prevHash).toBe(AUDIT_GENESIS);
    for (let i = 1; i < chain.length; i++) expect(chain[i]!.prevHash).toBe(chain[i - 1]!.hash);
    // The hash is the documented one (lib/audit/chain.ts), recomputable from the row alone.
    const last = chain[chain.length - 1]!;
    expect(last.hash).toBe(
      chainHash(last.prevHash!, {
        id: last.id.toString(),
        seq: Number(last.seq),
        stream: `account:${acme}`,
        at: last.at.toISOString(),
        actor: last.actor,
        event: last.event,
        message_id: null,
        detail: last.detail,
      }),
    );
    const sealedPerson = await db().auditEvent.findUniqueOrThrow({ where: { id: person.id } });
    expect(sealedPerson.seq).not.toBeNull();

    const live = await cli("audit", "verify");
    expect(live.code, live.stderr).toBe(0);
    expect(live.json).toEqual({ verified: expect.any(Number), unsealed: 0, first_broken: null });
    expect(live.json.verified).toBeGreaterThanOrEqual(chain.length + 1);
  });

  it("the export carries stream, seq, prev_hash and hash, and verifies offline", async () => {
    await waitSealed(await writeRows("acme", 2), 5000);
    const file = await exportFile("acme");
    const r = await cli("audit", "verify", "--file", file);
    expect(r.code, r.stderr).toBe(0);
    const acme = await accountId("acme");
    expect(r.json).toEqual({
      verified: await db().auditEvent.count({ where: { accountId: acme } }),
      unsealed: 0,
      first_broken: null,
    });
  });

  it("concurrent sealers never fork a chain", async () => {
    const ids = await writeRows("acme", 250);
    await Promise.all([sealPending(), sealPending(), sealPending(), sealPending()]);
    await waitSealed(ids, 5000);
    const acme = await accountId("acme");
    const seqs = (await db().auditEvent.findMany({ where: { accountId: acme }, select: { seq: true } })).map((r) =>
      Number(r.seq),
    );
    expect(seqs.sort((a, b) => a - b)).toEqual(seqs.map((_, i) => i + 1));
    const r = await cli("audit", "verify", "--account", "acme");
    expect(r.json.first_broken).toBeNull();
    expect(r.code).toBe(0);
  });
});

describe("append-only, with no bypass", () => {
  it("refuses TRUNCATE, UPDATE and DELETE — also with the old session setting — and a second seal", async () => {
    const [id] = await writeRows("acme", 1);
    await waitSealed([id!], 5000);
    await expect(sql("TRUNCATE audit_events")).rejects.toThrow(/append-only/);
    await expect(sql("TRUNCATE audit_events CASCADE")).rejects.toThrow(/append-only/);
    await expect(sql("TRUNCATE audit_tombstones")).rejects.toThrow(/append-only/);
    // Nor through the accounts and users the rows cascade from.
    await expect(sql("TRUNCATE accounts CASCADE")).rejects.toThrow(/append-only/);
    await expect(sql("DELETE FROM accounts WHERE slug = 'acme'")).rejects.toThrow(/append-only/);
    await expect(sql("DELETE FROM users WHERE email = 'alice@acme.test'")).rejects.toThrow(/append-only/);
    await expect(sql("UPDATE audit_events SET actor = 'human:mallory' WHERE id = $1", [id])).rejects.toThrow(
      /append-only/,
    );
    await expect(sql("DELETE FROM audit_events WHERE id = $1", [id])).rejects.toThrow(/append-only/);
    // The session-settable bypass of issue #6 is gone.
    await expect(
      sql("DO $$ BEGIN PERFORM set_config('ma2h.allow_audit_delete', 'on', false); DELETE FROM audit_events; END $$"),
    ).rejects.toThrow(/append-only/);
    // A seal is set once: re-sealing (a rewritten chain) is an UPDATE like any other.
    await expect(sql("UPDATE audit_events SET hash = repeat('a', 64) WHERE id = $1", [id])).rejects.toThrow(
      /append-only/,
    );
    // Nobody inserts a row pre-sealed, nor seals a row while changing it.
    const acme = await accountId("acme");
    await expect(
      sql(
        "INSERT INTO audit_events (account_id, actor, event, at, seq, prev_hash, hash) VALUES ($1, 'x', 'y', now(), 999999, repeat('0', 64), repeat('0', 64))",
        [acme],
      ),
    ).rejects.toThrow(/unsealed/);
    const [plain] = await sql(
      "INSERT INTO audit_events (account_id, actor, event, at) VALUES ($1, 'human:test', 'key.rotated', now()) RETURNING id",
      [acme],
    );
    await expect(
      sql(
        "UPDATE audit_events SET seq = 999999, prev_hash = repeat('0', 64), hash = repeat('0', 64), actor = 'human:mallory' WHERE id = $1",
        [plain.id],
      ),
    ).rejects.toThrow(/append-only/);
    expect(await db().auditEvent.count({ where: { id } })).toBe(1);
  });
});

describe("audit verify names a row edited as the table's owner", () => {
  it("live and in an export: first_broken is the row, reason hash_mismatch, exit code 1", async () => {
    const ids = await writeRows("tampered", 4);
    await waitSealed(ids, 5000);
    const before = await cli("audit", "verify", "--account", "tampered");
    expect(before.code).toBe(0);
    const victim = ids[2]!;
    // As the owner (the superuser here), with the trigger off for this one transaction.
    await sql(`BEGIN;
      ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only;
      UPDATE audit_events SET actor = 'human:mallory' WHERE id = ${victim};
      ALTER TABLE audit_events ENABLE TRIGGER audit_events_append_only;
      COMMIT;`);

    const live = await cli("audit", "verify", "--account", "tampered");
    expect(live.code).toBe(1);
    expect(live.json.first_broken).toEqual({ id: victim.toString(), reason: "hash_mismatch" });
    const all = await cli("audit", "verify");
    expect(all.code).toBe(1);
    expect(all.json.first_broken).toEqual({ id: victim.toString(), reason: "hash_mismatch" });

    const file = await exportFile("tampered");
    const offline = await cli("audit", "verify", "--file", file);
    expect(offline.code).toBe(1);
    expect(offline.json.first_broken).toEqual({ id: victim.toString(), reason: "hash_mismatch" });
    // The untouched account still verifies.
    expect((await cli("audit", "verify", "--account", "acme")).code).toBe(0);
  });

  it("a deleted row, and a row re-hashed to hide an edit, break the chain at the next row", async () => {
    const ids = await writeRows("tampered", 3);
    await waitSealed(ids, 5000);
    let text = "";
    for await (const line of auditJsonLines(await accountId("tampered"), {})) text += line;
    const lines = text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    const clean = lines.filter((l) => l.id !== lines.find((x) => x.actor === "human:mallory")?.id);
    // Dropping a line from the middle of an export: a seq gap at the next one.
    const tail = clean.slice(-3);
    const dropped = [tail[0], tail[2]].map((l) => JSON.stringify(l)).join("\n");
    expect(verifyJsonLines(dropped).first_broken).toEqual({ id: tail[2].id, reason: "seq_gap" });
    // Editing a line and recomputing its hash: the next line no longer links.
    const edited = { ...tail[0], actor: "human:mallory" };
    edited.hash = chainHash(edited.prev_hash, edited);
    const relinked = [edited, tail[1]].map((l) => JSON.stringify(l)).join("\n");
    expect(verifyJsonLines(relinked).first_broken).toEqual({ id: tail[1].id, reason: "prev_hash_mismatch" });
    expect(verifyJsonLines("not json\n").first_broken).toEqual({ id: "line 1", reason: "malformed" });
  });
});

describe("account purge", () => {
  it("needs --confirm with the slug, and changes nothing without it", async () => {
    const r = await cli("account", "purge", "doomed", "--confirm", "acme");
    expect(r.code).toBe(2);
    expect(r.json.error.code).toBe("validation_error");
    expect(await db().account.count({ where: { slug: "doomed" } })).toBe(1);
    const missing = await cli("account", "purge", "nope", "--confirm", "nope");
    expect(missing.json.error.code).toBe("not_found");
  });

  it("erases the account and its trail, leaves a tombstone with the last hash; other chains still verify", async () => {
    const id = await accountId("doomed");
    await waitSealed(await writeRows("doomed", 3), 5000);
    // One more row, possibly still unsealed: the purge seals it before it erases.
    await writeRows("doomed", 1);
    const total = await db().auditEvent.count({ where: { accountId: id } });

    const r = await cli("account", "purge", "doomed", "--confirm", "doomed");
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.purged).toEqual({
      slug: "doomed",
      erased_audit_rows: total,
      last_seq: total,
      last_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(await db().account.count({ where: { id } })).toBe(0);
    expect(await db().auditEvent.count({ where: { accountId: id } })).toBe(0);
    const [tomb] = await sql("SELECT * FROM audit_tombstones WHERE account_id = $1", [id]);
    expect(tomb).toMatchObject({ slug: "doomed", last_hash: r.json.purged.last_hash, actor: "system:cli" });
    expect(Number(tomb.last_seq)).toBe(total);
    expect(Number(tomb.erased_rows)).toBe(total);
    // The tombstone is as append-only as the trail, and the trigger is back on.
    await expect(sql("DELETE FROM audit_tombstones")).rejects.toThrow(/append-only/);
    await expect(sql("DELETE FROM audit_events WHERE account_id = $1", [await accountId("acme")])).rejects.toThrow(
      /append-only/,
    );

    const acme = await cli("audit", "verify", "--account", "acme");
    expect(acme.code).toBe(0);
    expect(acme.json.first_broken).toBeNull();
    expect(acme.json.verified).toBeGreaterThan(0);
  });
});

describe("the Hub under a role that does not own the audit trail (docs/DEPLOYMENT.md)", () => {
  const role = `ma2h_app_${randomBytes(4).toString("hex")}`;
  let roleUrl = "";
  let roleWorker: HubProcess | undefined;

  beforeAll(async () => {
    await sql(`CREATE ROLE ${role} LOGIN`);
    const script = (await readFile(join(repoRoot, "scripts/hub-role.sql"), "utf8")).replaceAll(':"hub_role"', role);
    await sql(script);
    const url = new URL(database.url);
    url.username = role;
    roleUrl = url.toString();
  });

  afterAll(async () => {
    await roleWorker?.stop();
    // The role worker's queues: leave no keys behind in the shared Redis.
    const redis = new Redis("redis://127.0.0.1:6379");
    const keys = await redis.keys(`ma2h-test-${role}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    await sql(`DROP OWNED BY ${role}`).catch(() => {});
    await sql(`DROP ROLE IF EXISTS ${role}`).catch(() => {});
  });

  async function asRole(text: string, params: unknown[] = []): Promise<any[]> {
    const client = new pg.Client({ connectionString: roleUrl });
    await client.connect();
    try {
      return (await client.query(text, params)).rows;
    } finally {
      await client.end();
    }
  }

  it("appends and seals (with Redis queues), but cannot rewrite, delete, truncate, disable the trigger or purge", async () => {
    // Only the role's worker seals from here on.
    await worker?.stop();
    worker = undefined;
    roleWorker = await startHub({
      databaseUrl: roleUrl,
      mode: "worker",
      env: { REDIS_URL: "redis://127.0.0.1:6379", MA2H_QUEUE_PREFIX: `ma2h-test-${role}` },
    });
    const acme = await accountId("acme");
    const [row] = await asRole(
      "INSERT INTO audit_events (account_id, actor, event, at) VALUES ($1, 'human:test', 'key.rotated', now()) RETURNING id",
      [acme],
    );
    await waitSealed([BigInt(row.id)], 15_000);
    expect(roleWorker.output()).not.toMatch(/"level":"(warn|error)"/);

    await expect(asRole("UPDATE audit_events SET actor = 'x' WHERE id = $1", [row.id])).rejects.toThrow(
      /permission denied/,
    );
    await expect(asRole("DELETE FROM audit_events WHERE id = $1", [row.id])).rejects.toThrow(/permission denied/);
    await expect(asRole("TRUNCATE audit_events")).rejects.toThrow(/permission denied/);
    await expect(asRole("ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only")).rejects.toThrow(
      /must be owner/,
    );
    await expect(
      asRole(
        "INSERT INTO audit_tombstones (account_id, slug, last_seq, last_hash, erased_rows, actor, at) VALUES ('a', 'a', 0, 'x', 0, 'x', now())",
      ),
    ).rejects.toThrow(/permission denied/);

    const purge = await new Promise<Run>((resolve) => {
      execFile(
        process.execPath,
        ["bin/ma2h-hub.js", "account", "purge", "acme", "--confirm", "acme", "--json"],
        {
          cwd: repoRoot,
          env: { ...process.env, DATABASE_URL: roleUrl, AUTH_SECRET: TEST_AUTH_SECRET },
          timeout: 60_000,
        },
        (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr, json: JSON.parse(stdout) }),
      );
    });
    expect(purge.code).toBe(1);
    expect(purge.json.error.code).toBe("not_authorized");
    expect(await db().account.count({ where: { slug: "acme" } })).toBe(1);
    expect((await cli("audit", "verify", "--account", "acme")).json.first_broken).toBeNull();
  });
});

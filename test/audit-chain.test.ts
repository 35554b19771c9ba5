/**
 * The tamper-evident audit trail, against real PostgreSQL and a real worker process: rows are
 * sealed off the request path within 5 s; TRUNCATE, UPDATE and DELETE are refused with no bypass; a
 * row edited as the table's owner is named by `ma2h-hub audit verify`, live and in an export; a
 * purge leaves a tombstone and other chains intact; concurrent sealers never fork a chain.
 */
// covers: lib/audit/, cli/audit-commands.ts, app/well-known/ma2h-audit-keys/route.ts
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as auditKeysDocument } from "../app/well-known/ma2h-audit-keys/route";
import {
  AUDIT_GENESIS,
  ChainWalker,
  chainHash,
  checkpointContext,
  checkpointSigned,
  keysFromDocument,
} from "../lib/audit/chain";
import { ed25519KeyPair, kidFor, signContext } from "@ma2h/protocol/signing";
import { AUDIT_EVENT } from "../lib/audit/events";
import { auditJsonLines } from "../lib/audit/log";
import { sealPending } from "../lib/audit/seal";
import { verifyJsonLines } from "../lib/audit/verify";
import { writeAudit, writePersonAudit } from "../lib/audit/write";
import { db } from "../lib/db";
import { repoRoot, startHub, TEST_AUTH_SECRET, type HubProcess } from "./support/hub";
import { provisionAccount } from "./support/provision";
import { useTestDatabase } from "./support/test-database";
import { waitFor } from "./support/wait";

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
  await waitFor(async () => (await db().auditEvent.count({ where: { id: { in: ids }, hash: null } })) === 0, {
    timeout: withinMs,
    every: 100,
    what: `${ids.length} audit row(s) sealed`,
  });
  return Date.now() - t0;
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
  await provisionAccount("rechained", ["bot"], [{ handle: "rita", role: "owner" }]);
  await provisionAccount("forged", ["bot"], [{ handle: "fred", role: "owner" }]);
  // An account with no audit rows of its own yet (provisioning writes none this way).
  await db().account.create({ data: { id: "acct_legacy_test", slug: "legacy" } });
  worker = await startHub({ databaseUrl: database.url, mode: "worker" });
  const w = worker;
  await waitFor(() => w.output().includes("worker running") || w.child.exitCode !== null, {
    timeout: 60_000,
    every: 100,
    what: "the worker's `worker running` line",
  }).catch(() => undefined);
  if (!w.output().includes("worker running")) throw new Error(w.output());
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
    expect(live.json).toEqual({
      verified: expect.any(Number),
      unsealed: 0,
      checkpoints: expect.any(Number),
      unsigned_before: [],
      first_broken: null,
    });
    expect(live.json.checkpoints).toBeGreaterThanOrEqual(2);
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
      checkpoints: await db().auditCheckpoint.count({ where: { stream: `account:${acme}` } }),
      unsigned_before: [],
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

/** The published audit keys document, saved to a file as a verifier would keep it. */
async function savedKeys(): Promise<{ file: string; doc: unknown }> {
  const res = await auditKeysDocument(new Request("http://hub.test/.well-known/ma2h-audit-keys"));
  expect(res.status).toBe(200);
  const doc = await res.json();
  const file = join(await mkdtemp(join(tmpdir(), "ma2h-keys-")), "ma2h-audit-keys.json");
  await writeFile(file, JSON.stringify(doc));
  return { file, doc };
}

/** `n` rows, each sealed in its own batch (so each ends with its own checkpoint). */
async function rowsOneByOne(slug: string, n: number): Promise<bigint[]> {
  const ids: bigint[] = [];
  for (let i = 0; i < n; i++) {
    const [id] = await writeRows(slug, 1);
    await waitSealed([id!], 10_000);
    ids.push(id!);
  }
  return ids;
}

interface ChainRow {
  id: string;
  seq: string;
  prev_hash: string;
  hash: string;
  actor: string;
  event: string;
  detail: unknown;
  at: Date;
  message_id: string | null;
}

/**
 * What the table's owner can do: with the trigger off, edit `edit`'s actor, delete `drop`, and
 * re-chain every row after the genesis so every seq and hash recomputes.
 */
async function editDeleteRechain(slug: string, edit: bigint, drop: bigint): Promise<void> {
  const account = await accountId(slug);
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query("BEGIN");
    await client.query("ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only");
    await client.query("UPDATE audit_events SET actor = 'human:mallory' WHERE id = $1", [edit]);
    await client.query("DELETE FROM audit_events WHERE id = $1", [drop]);
    const rows = (
      await client.query<ChainRow>(
        "SELECT id, seq, prev_hash, hash, actor, event, detail, at, message_id FROM audit_events WHERE account_id = $1 ORDER BY seq",
        [account],
      )
    ).rows;
    let prev = AUDIT_GENESIS;
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      const seq = i + 1;
      const hash = chainHash(prev, {
        id: String(r.id),
        seq,
        stream: `account:${account}`,
        at: r.at.toISOString(),
        actor: r.actor,
        event: r.event,
        message_id: r.message_id,
        detail: r.detail,
      });
      await client.query("UPDATE audit_events SET seq = $2, prev_hash = $3, hash = $4 WHERE id = $1", [
        r.id,
        seq,
        prev,
        hash,
      ]);
      prev = hash;
    }
    await client.query("ALTER TABLE audit_events ENABLE TRIGGER audit_events_append_only");
    await client.query("COMMIT");
  } finally {
    await client.end();
  }
}

/** The bare SHA-256 chain of a stream, as verify checked it before checkpoints: does it hold? */
async function bareChainHolds(slug: string): Promise<boolean> {
  const account = await accountId(slug);
  const rows = await db().auditEvent.findMany({ where: { accountId: account }, orderBy: { seq: "asc" } });
  const walker = new ChainWalker({ seq: 1, prevHash: AUDIT_GENESIS });
  for (const r of rows)
    walker.step({
      id: r.id.toString(),
      seq: Number(r.seq),
      stream: `account:${account}`,
      at: r.at.toISOString(),
      actor: r.actor,
      event: r.event,
      message_id: r.messageId,
      detail: r.detail,
      prev_hash: r.prevHash!,
      hash: r.hash!,
    });
  walker.finish(true);
  return walker.broken === null && walker.verified === rows.length;
}

describe("signed checkpoints", () => {
  it("each sealing batch ends with a checkpoint of the stream's head, signed by a published key the Hub generated", async () => {
    const ids = await rowsOneByOne("acme", 2);
    const acme = await accountId("acme");
    const stream = `account:${acme}`;
    const last = await db().auditEvent.findUniqueOrThrow({ where: { id: ids[1]! } });
    const cp = await db().auditCheckpoint.findUniqueOrThrow({ where: { stream_seq: { stream, seq: last.seq! } } });
    expect(cp.hash).toBe(last.hash);
    const { doc } = await savedKeys();
    const keys = keysFromDocument(doc)!;
    expect(keys.size).toBe(1);
    expect(JSON.stringify(doc)).not.toMatch(/"d"/); // public halves only
    expect(checkpointSigned({ ...cp, seq: Number(cp.seq) }, keys)).toBe(true);
    expect(checkpointSigned({ ...cp, seq: Number(cp.seq), hash: "f".repeat(64) }, keys)).toBe(false);
    // A key row written into the table by hand (its private half not sealed by the Hub) is not published.
    const rogue = ed25519KeyPair();
    await sql(
      "INSERT INTO audit_signing_keys (kid, public_key, sealed_private_key, created_at) VALUES ($1, $2, 'v1.x', now())",
      [kidFor(rogue.publicKey), Buffer.from(rogue.publicKey).toString("base64url")],
    );
    expect(keysFromDocument((await savedKeys()).doc)!.has(kidFor(rogue.publicKey))).toBe(false);
    // Checkpoints are as append-only as the trail.
    await expect(sql("UPDATE audit_checkpoints SET hash = repeat('0', 64)")).rejects.toThrow(/append-only/);
    await expect(sql("DELETE FROM audit_checkpoints")).rejects.toThrow(/append-only/);
    await expect(sql("TRUNCATE audit_checkpoints")).rejects.toThrow(/append-only/);
    await expect(sql("DELETE FROM audit_signing_keys")).rejects.toThrow(/append-only/);
  });

  it("edit one row, delete another, re-chain as the owner: verify fails naming the first bad row, live and offline", async () => {
    const ids = await rowsOneByOne("rechained", 5);
    expect((await cli("audit", "verify", "--account", "rechained")).code).toBe(0);
    await editDeleteRechain("rechained", ids[1]!, ids[3]!);
    // The bare SHA-256 chain holds after the re-chain: without checkpoints nothing would notice.
    expect(await bareChainHolds("rechained")).toBe(true);

    const live = await cli("audit", "verify", "--account", "rechained");
    expect(live.code).toBe(1);
    expect(live.json.first_broken).toEqual({ id: ids[1]!.toString(), reason: "checkpoint_mismatch" });

    // Offline: the export and the saved keys, with no database reachable.
    const file = await exportFile("rechained");
    const keys = await savedKeys();
    const offline = await new Promise<Run>((resolve) => {
      execFile(
        process.execPath,
        ["bin/ma2h-hub.js", "audit", "verify", "--file", file, "--keys", keys.file, "--json"],
        {
          cwd: repoRoot,
          env: { ...process.env, DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none", AUTH_SECRET: "x".repeat(32) },
          timeout: 60_000,
        },
        (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr, json: JSON.parse(stdout) }),
      );
    });
    expect(offline.code, offline.stderr).toBe(1);
    expect(offline.json.first_broken).toEqual({ id: ids[1]!.toString(), reason: "checkpoint_mismatch" });
  });

  it("re-chained with forged checkpoints under a key of the owner's own: still names the first bad row", async () => {
    const ids = await rowsOneByOne("forged", 4);
    // The edited row keeps its seq (the deleted one is after it); from there the owner replaces the checkpoints.
    const from = Number((await db().auditEvent.findUniqueOrThrow({ where: { id: ids[1]! } })).seq);
    await editDeleteRechain("forged", ids[1]!, ids[2]!);
    const account = await accountId("forged");
    const stream = `account:${account}`;
    const own = ed25519KeyPair();
    const kid = kidFor(own.publicKey);
    await sql(
      "INSERT INTO audit_signing_keys (kid, public_key, sealed_private_key, created_at) VALUES ($1, $2, 'v1.x', now())",
      [kid, Buffer.from(own.publicKey).toString("base64url")],
    );
    const rows = await db().auditEvent.findMany({ where: { accountId: account }, orderBy: { seq: "asc" } });
    const statements = [
      "ALTER TABLE audit_checkpoints DISABLE TRIGGER audit_checkpoints_append_only",
      `DELETE FROM audit_checkpoints WHERE stream = '${stream}' AND seq >= ${from}`,
      ...rows
        .filter((r) => Number(r.seq) >= from)
        .map((r) => {
          const signature = signContext(checkpointContext({ stream, seq: Number(r.seq), hash: r.hash! }), {
            alg: "ed25519",
            privateKey: own.privateKey,
          });
          return `INSERT INTO audit_checkpoints (stream, seq, hash, kid, signature, at) VALUES ('${stream}', ${r.seq}, '${r.hash}', '${kid}', '${signature}', now())`;
        }),
      "ALTER TABLE audit_checkpoints ENABLE TRIGGER audit_checkpoints_append_only",
    ];
    await sql(`BEGIN; ${statements.join("; ")}; COMMIT;`);
    const live = await cli("audit", "verify", "--account", "forged");
    expect(live.code).toBe(1);
    expect(live.json.first_broken).toEqual({ id: ids[1]!.toString(), reason: "not_checkpointed" });
  });

  it("an export refuses unsealed lines and a start with no known anchor, unless asked", async () => {
    const file = await exportFile("acme");
    const text = await readFile(file, "utf8");
    const keys = keysFromDocument((await savedKeys()).doc)!;
    expect(verifyJsonLines(text, { keys }).first_broken).toBeNull();
    const rows = text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l))
      .filter((l) => l.id !== undefined);
    const unsealed = { ...rows[rows.length - 1], id: "999999999", seq: null, prev_hash: null, hash: null };
    const withUnsealed = `${text}${JSON.stringify(unsealed)}\n`;
    expect(verifyJsonLines(withUnsealed, { keys }).first_broken).toEqual({ id: "999999999", reason: "unsealed" });
    expect(verifyJsonLines(withUnsealed, { keys, allowUnsealed: true }).first_broken).toBeNull();
    // Cut mid-chain with no checkpoint before its first line: it needs an anchor known from elsewhere.
    const cut = rows.slice(3);
    const cutText = cut.map((l) => JSON.stringify(l)).join("\n");
    expect(verifyJsonLines(cutText, { keys }).first_broken).toEqual({ id: cut[0].id, reason: "no_anchor" });
    const anchor = { seq: rows[2].seq, hash: rows[2].hash };
    // Lines past the last checkpoint in the file are refused too, unless asked.
    expect(verifyJsonLines(cutText, { keys, anchor }).first_broken?.reason).toBe("not_checkpointed");
    expect(verifyJsonLines(cutText, { keys, anchor, allowUnsealed: true }).first_broken).toBeNull();
    expect(
      verifyJsonLines(cutText, { keys, anchor: { ...anchor, hash: "0".repeat(64) }, allowUnsealed: true }).first_broken,
    ).toEqual({
      id: cut[0].id,
      reason: "prev_hash_mismatch",
    });
  });

  it("rows sealed before checkpoints existed: verify reports 'unsigned before seq N', and the first checkpoint covers them", async () => {
    const account = await accountId("legacy");
    const stream = `account:${account}`;
    // As the rows of an upgraded Hub: three sealed with the bare chain, and the migration's marker.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query("BEGIN");
      await client.query("ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only");
      let prev = AUDIT_GENESIS;
      for (let seq = 1; seq <= 3; seq++) {
        const at = new Date(Date.now() - 60_000 + seq);
        const [row] = (
          await client.query<{ id: string }>(
            "INSERT INTO audit_events (account_id, actor, event, at) VALUES ($1, 'human:lee', 'key.rotated', $2) RETURNING id",
            [account, at],
          )
        ).rows;
        const hash = chainHash(prev, {
          id: String(row!.id),
          seq,
          stream,
          at: at.toISOString(),
          actor: "human:lee",
          event: "key.rotated",
          message_id: null,
          detail: null,
        });
        await client.query("UPDATE audit_events SET seq = $2, prev_hash = $3, hash = $4 WHERE id = $1", [
          row!.id,
          seq,
          prev,
          hash,
        ]);
        prev = hash;
      }
      await client.query("INSERT INTO audit_signing_starts (stream, first_signed_seq) VALUES ($1, 4)", [stream]);
      await client.query("ALTER TABLE audit_events ENABLE TRIGGER audit_events_append_only");
      await client.query("COMMIT");
    } finally {
      await client.end();
    }
    // The worker signs the idle stream's head.
    await waitFor(async () => (await db().auditCheckpoint.count({ where: { stream } })) > 0, {
      timeout: 15_000,
      every: 100,
      what: "a checkpoint of the legacy stream",
    });
    const r = await cli("audit", "verify", "--account", "legacy");
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({
      verified: 3,
      checkpoints: 1,
      unsigned_before: [{ stream, seq: 4 }],
      first_broken: null,
    });
    const text = await new Promise<string>((resolve) =>
      execFile(
        process.execPath,
        ["bin/ma2h-hub.js", "audit", "verify", "--account", "legacy"],
        { cwd: repoRoot, env: { ...process.env, DATABASE_URL: database.url, AUTH_SECRET: TEST_AUTH_SECRET } },
        (_err, stdout) => resolve(stdout),
      ),
    );
    expect(text).toContain(`${stream}: unsigned before seq 4`);
    // Its export verifies from the genesis to that checkpoint.
    const offline = await cli("audit", "verify", "--file", await exportFile("legacy"));
    expect(offline.json).toMatchObject({ verified: 3, checkpoints: 1, first_broken: null });
  });

  it("the trigger functions run with search_path pg_catalog; a worker running as the owner warns at start", async () => {
    const fns = await sql(
      "SELECT proname, proconfig FROM pg_proc WHERE proname IN ('audit_events_append_only', 'audit_refuse_change') ORDER BY proname",
    );
    expect(fns).toEqual([
      { proname: "audit_events_append_only", proconfig: ["search_path=pg_catalog"] },
      { proname: "audit_refuse_change", proconfig: ["search_path=pg_catalog"] },
    ]);
    // A `public.to_jsonb` taking the row type exactly would win over pg_catalog's polymorphic one on
    // a default search_path, and let a seal change a row's content; pinned, it is never called. All
    // in one transaction, rolled back: the sealer never sees the row.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query("BEGIN");
      await client.query(
        "CREATE FUNCTION public.to_jsonb(audit_events) RETURNS jsonb LANGUAGE sql AS $$ SELECT '{}'::jsonb $$",
      );
      const [plain] = (
        await client.query(
          "INSERT INTO audit_events (account_id, actor, event, at) VALUES ($1, 'human:test', 'key.rotated', now()) RETURNING id",
          [await accountId("acme")],
        )
      ).rows;
      await expect(
        client.query(
          "UPDATE audit_events SET seq = 999999, prev_hash = repeat('0', 64), hash = repeat('0', 64), actor = 'human:mallory' WHERE id = $1",
          [plain.id],
        ),
      ).rejects.toThrow(/append-only/);
    } finally {
      await client.query("ROLLBACK").catch(() => {});
      await client.end();
    }
    expect(worker?.output()).toContain("runs as the owner of the audit trail");
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
    // No session-settable bypass: the trigger cannot be switched off by a session flag.
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
    // Over every stream, the earliest broken row of the database (the re-chained accounts above broke
    // theirs first), whatever order the streams are walked in.
    const all = await cli("audit", "verify");
    expect(all.code).toBe(1);
    expect(BigInt(all.json.first_broken.id)).toBeLessThanOrEqual(victim);

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
    const clean = lines.filter(
      (l) => l.id !== undefined && l.id !== lines.find((x) => x.actor === "human:mallory")?.id,
    );
    // Dropping a line from the middle of an export: a seq gap at the next one.
    const tail = clean.slice(-3);
    const dropped = [tail[0], tail[2]].map((l) => JSON.stringify(l)).join("\n");
    const loose = { keys: new Map(), anchor: { seq: tail[0].seq - 1, hash: tail[0].prev_hash }, allowUnsealed: true };
    expect(verifyJsonLines(dropped, loose).first_broken).toEqual({ id: tail[2].id, reason: "seq_gap" });
    // Editing a line and recomputing its hash: the next line no longer links.
    const edited = { ...tail[0], actor: "human:mallory" };
    edited.hash = chainHash(edited.prev_hash, edited);
    const relinked = [edited, tail[1]].map((l) => JSON.stringify(l)).join("\n");
    expect(verifyJsonLines(relinked, loose).first_broken).toEqual({ id: tail[1].id, reason: "prev_hash_mismatch" });
    expect(verifyJsonLines("not json\n", loose).first_broken).toEqual({ id: "line 1", reason: "malformed" });
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

/**
 * Sealed values bound to their purpose and row, against real PostgreSQL: a sealed value copied
 * into another row does not open (and the Hub refuses to use it); values in format v1 (the older one)
 * are re-sealed by the migration runner's start-up step (a real `node bin/run.mjs migrate deploy` child, as `npm run db:migrate` runs it
 * process — deployMigrations cannot run twice in one process) and then open; a short AUTH_SECRET
 * stops a real process at start; `ma2h-hub secrets rotate --from-env` round-trips every sealed value
 * in one transaction and rolls back, naming the row, when one opens under neither secret.
 */
// covers: lib/sealed/, lib/secrets.ts, cli/secrets-commands.ts
import { createCipheriv, randomBytes } from "node:crypto";
import { execFile } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, db } from "../lib/db";
import { changeStandardWebhooks, standardWebhooksSecretOf } from "../lib/delivery/binding-webhooks";
import { resetEnvCache } from "../lib/env";
import { activeSigningKey, ensureSigningKey, publishedKeys, rotateSigningKey } from "../lib/keys/signing-keys";
import { openConnection } from "../lib/notifications/slack/connection";
import { vapidKeys } from "../lib/notifications/web-push/vapid";
import { createAccount } from "../lib/principals/accounts";
import { createAgent } from "../lib/principals/agents";
import { addBinding, resolveCallbackSecret } from "../lib/principals/bindings";
import { rowKeyContext, SEALED, SEAL_PURPOSES, sealContext } from "../lib/sealed/catalogue";
import { resealLegacyValues } from "../lib/sealed/reseal";
import { lockedRows } from "../lib/sealed/rows";
import { deriveSealKey, openSecret, sealSecret } from "../lib/secrets";
import { ed25519KeyPair, kidFor } from "@ma2h/protocol/signing";
import { createTestDatabase } from "./support/database";
import { repoRoot, startHub } from "./support/hub";

const OLD = "sealed-values-test-old-secret-0123456789abcdef";
const NEW = "sealed-values-test-new-secret-fedcba9876543210";
const STRAY = "a-third-secret-nobody-rotates-from-0123456789";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let client: pg.Client;
let bindingA: string;
let bindingB: string;
let webhooksA: string;
let accountId: string;
let subscriptionId: string;
let kids: string[];
/** Binding B's destination, which enters its secret's context. */
const destinationB = { scheme: "https", host: "b.example", port: 443, path_prefix: "/" };

function useSecret(secret: string): void {
  process.env.AUTH_SECRET = secret;
  resetEnvCache();
}

async function sql<T = Record<string, any>>(text: string, params: unknown[] = []): Promise<T[]> {
  return (await client.query(text, params)).rows as T[];
}

/** A value in format v1 (the older one): AES-GCM under the same key, the version alone as associated data. */
function legacySeal(material: string, plaintext: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv("aes-256-gcm", deriveSealKey(material).bytes, iv, { authTagLength: 16 });
  c.setAAD(Buffer.from("v1"));
  const ct = Buffer.concat([c.update(plaintext, "utf8"), c.final()]);
  return ["v1", iv.toString("base64url"), c.getAuthTag().toString("base64url"), ct.toString("base64url")].join(".");
}

/** Every sealed value in the database, by table.column and row key: a snapshot to compare. */
async function snapshot(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const p of SEAL_PURPOSES) {
    const { table, column, rowKey } = SEALED[p];
    for (const r of await sql(`SELECT ${rowKey.join(", ")}, ${column} AS v FROM ${table} WHERE ${column} IS NOT NULL`))
      out[`${table}.${column}:${rowKey.map((k) => r[k]).join("/")}`] = r.v;
  }
  return out;
}

/** Binding A's Standard Webhooks secret as a push would read it (lib/delivery/binding-webhooks.ts). */
async function webhooksSecretOf(id: string) {
  return standardWebhooksSecretOf(await db().callbackBinding.findUniqueOrThrow({ where: { id } }));
}

function run(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string; json: any }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      {
        cwd: repoRoot,
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          NODE_ENV: "production",
          DATABASE_URL: database.url,
          ...env,
        },
        timeout: 120_000,
      },
      (err, stdout, stderr) => {
        let json: any = null;
        try {
          json = JSON.parse(stdout);
        } catch {
          /* not JSON */
        }
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr, json });
      },
    );
  });
}

const rotate = (env: Record<string, string>) =>
  run(["bin/ma2h-hub.js", "secrets", "rotate", "--from-env", "OLD_AUTH_SECRET", "--json"], env);

beforeAll(async () => {
  database = await createTestDatabase();
  process.env.DATABASE_URL = database.url;
  delete process.env.MA2H_SECRETS_KEY;
  useSecret(OLD);
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
  accountId = (await createAccount("acme")).id;
  await createAgent("bot", "acme");
  const bind = (origin: string, secret: string) =>
    addBinding({ agentRef: { agentId: "bot" }, origin, secretRef: "hooks", secret });
  bindingA = (await bind("https://a.example", "secret-of-a")).id;
  bindingB = (await bind("https://b.example", "secret-of-b")).id;
  webhooksA = (await changeStandardWebhooks(bindingA, "on")).secret as string;
  await ensureSigningKey();
  await rotateSigningKey();
  kids = (await sql<{ kid: string }>("SELECT kid FROM signing_keys ORDER BY created_at")).map((r) => r.kid);
  // Slack and push rows as their code writes them (connecting Slack would call Slack's API).
  const row = { account_id: accountId };
  await sql(
    `INSERT INTO slack_connections (account_id, team_id, team_name, bot_token_sealed, signing_secret_sealed,
       connected_by, created_at, updated_at) VALUES ($1, 'T1', 'Team', $2, $3, 'human:test', now(), now())`,
    [
      accountId,
      sealSecret("xoxb-bot-token", sealContext("slackBotToken", row)),
      sealSecret("signing0secret0value", sealContext("slackSigningSecret", row)),
    ],
  );
  await sql(
    `INSERT INTO teams_connections (account_id, app_id, tenant_id, app_secret_sealed, connected_by, created_at,
       updated_at) VALUES ($1, 'app', 'tenant', $2, 'human:test', now(), now())`,
    [accountId, sealSecret("teams-app-secret", sealContext("teamsAppSecret", row))],
  );
  await sql("INSERT INTO users (id, email) VALUES ('usr_test', 'mia@example.com')");
  subscriptionId = "psub_test";
  await sql(
    `INSERT INTO push_subscriptions (id, user_id, endpoint, p256dh, auth_sealed, label, created_at)
     VALUES ($1, 'usr_test', 'https://push.example/1', 'p256', $2, 'Firefox', now())`,
    [subscriptionId, sealSecret("push-auth-secret", sealContext("pushSubscriptionAuth", { id: subscriptionId }))],
  );
  await vapidKeys();
}, 120_000);

afterAll(async () => {
  await client?.end();
  await closeDb();
  await database?.drop();
});

describe("sealed values are bound to their purpose and row", () => {
  it("the catalogue names every sealed column in the schema", async () => {
    const cols = await sql<{ c: string }>(
      `SELECT table_name || '.' || column_name AS c FROM information_schema.columns
       WHERE table_schema = 'public' AND column_name LIKE '%sealed%'`,
    );
    const catalogued = SEAL_PURPOSES.map((p) => `${SEALED[p].table}.${SEALED[p].column}`);
    expect(cols.map((r) => r.c).sort()).toEqual([...catalogued].sort());
  });

  it("a binding secret swapped into another binding's row does not open, and is not used", async () => {
    expect(await resolveCallbackSecret(bindingA, "hooks")).toBe("secret-of-a");
    expect(await resolveCallbackSecret(bindingB, "hooks")).toBe("secret-of-b");
    const swap = `UPDATE binding_secrets SET sealed = CASE binding_id WHEN $1 THEN (SELECT sealed FROM binding_secrets WHERE binding_id = $2)
                  ELSE (SELECT sealed FROM binding_secrets WHERE binding_id = $1) END WHERE binding_id IN ($1, $2)`;
    await sql(swap, [bindingA, bindingB]);
    // In format v1 each would have opened as the other binding's secret and signed its pushes.
    await expect(resolveCallbackSecret(bindingA, "hooks")).rejects.toThrow(/authentication failed/);
    await expect(resolveCallbackSecret(bindingB, "hooks")).rejects.toThrow(/authentication failed/);
    await sql(swap, [bindingA, bindingB]);
    expect(await resolveCallbackSecret(bindingA, "hooks")).toBe("secret-of-a");
  });

  it("a binding pointed at another destination no longer opens its secret (bound to scheme, host, port, prefix)", async () => {
    expect(await resolveCallbackSecret(bindingA, "hooks")).toBe("secret-of-a");
    for (const [column, value] of [
      ["host", "evil.example"],
      ["scheme", "http"],
      ["port", 8443],
      ["path_prefix", "/elsewhere"],
    ] as const) {
      const before = (
        await sql<Record<string, unknown>>(`SELECT ${column} AS v FROM callback_bindings WHERE id = $1`, [bindingA])
      )[0]?.v;
      await sql(`UPDATE callback_bindings SET ${column} = $1 WHERE id = $2`, [value, bindingA]);
      // Before the destination entered the context, the secret opened and went wherever the row said.
      await expect(resolveCallbackSecret(bindingA, "hooks"), column).rejects.toThrow(/authentication failed/);
      expect(await webhooksSecretOf(bindingA), column).toEqual({ on: true, secret: null });
      await sql(`UPDATE callback_bindings SET ${column} = $1 WHERE id = $2`, [before, bindingA]);
    }
    expect(await resolveCallbackSecret(bindingA, "hooks")).toBe("secret-of-a");
    expect(await webhooksSecretOf(bindingA)).toEqual({ on: true, secret: webhooksA });
  });

  it("a binding secret sealed before its destination was bound is sealed again at start, then opens", async () => {
    const bare = rowKeyContext("bindingSecret", { binding_id: bindingA, ref: "hooks" });
    await sql("UPDATE binding_secrets SET sealed = $1 WHERE binding_id = $2", [
      sealSecret("secret-of-a", bare),
      bindingA,
    ]);
    await expect(resolveCallbackSecret(bindingA, "hooks")).rejects.toThrow(/authentication failed/);
    expect(await resealLegacyValues(client)).toEqual({ resealed: 1, unopenable: [] });
    expect(await resolveCallbackSecret(bindingA, "hooks")).toBe("secret-of-a");
    expect(await resealLegacyValues(client)).toEqual({ resealed: 0, unopenable: [] });
  });

  it("publishes only keys the Hub generated: a planted public key is left out and stops the start", async () => {
    const planted = ed25519KeyPair();
    const kid = kidFor(planted.publicKey);
    const x = Buffer.from(planted.publicKey).toString("base64url");
    await sql("INSERT INTO signing_keys (kid, public_key, sealed_private_key, created_at) VALUES ($1, $2, '', now())", [
      kid,
      x,
    ]);
    // Our own private half under the planted public half: opens, but derives another public key.
    const mixed = ed25519KeyPair();
    const mixedKid = kidFor(mixed.publicKey);
    const ours = openSecret(
      (await sql<{ s: string }>("SELECT sealed_private_key AS s FROM signing_keys WHERE kid = $1", [kids[1]]))[0]!.s,
      sealContext("signingKey", { kid: kids[1]! }),
    );
    await sql("INSERT INTO signing_keys (kid, public_key, sealed_private_key, created_at) VALUES ($1, $2, $3, now())", [
      mixedKid,
      Buffer.from(mixed.publicKey).toString("base64url"),
      sealSecret(ours, sealContext("signingKey", { kid: mixedKid })),
    ]);
    try {
      const published = (await publishedKeys()).keys.map((k) => k.kid);
      expect(published).toContain(kids[1]);
      expect(published).not.toContain(kid);
      expect(published).not.toContain(mixedKid);
      await expect(ensureSigningKey()).rejects.toThrow(new RegExp(`${kid}.*${mixedKid}|${mixedKid}.*${kid}`));
    } finally {
      await sql("DELETE FROM signing_keys WHERE kid IN ($1, $2)", [kid, mixedKid]);
    }
    await expect(ensureSigningKey()).resolves.toBeUndefined();
  });

  it("a signing key's sealed half moved to another kid does not open: the Hub does not sign with it", async () => {
    const [k1, k2] = kids as [string, string];
    const swap = `UPDATE signing_keys SET sealed_private_key = CASE kid WHEN $1 THEN (SELECT sealed_private_key FROM signing_keys WHERE kid = $2)
                  ELSE (SELECT sealed_private_key FROM signing_keys WHERE kid = $1) END WHERE kid IN ($1, $2)`;
    await sql(swap, [k1, k2]);
    await expect(activeSigningKey()).rejects.toThrow(/authentication failed/);
    await sql(swap, [k1, k2]);
    expect((await activeSigningKey()).kid).toBe(k2);
  });

  it("the Slack bot token does not open as the signing secret of the same row", async () => {
    await sql(
      "UPDATE slack_connections SET signing_secret_sealed = bot_token_sealed, bot_token_sealed = signing_secret_sealed",
    );
    await expect(openConnection(accountId)).rejects.toThrow(/authentication failed/);
    await sql(
      "UPDATE slack_connections SET signing_secret_sealed = bot_token_sealed, bot_token_sealed = signing_secret_sealed",
    );
    expect((await openConnection(accountId))?.botToken).toBe("xoxb-bot-token");
  });

  it("legacy (v1) values are re-sealed by the migration runner's start-up step, then open; again is a no-op", async () => {
    const before = await snapshot();
    await sql("UPDATE binding_secrets SET sealed = $1 WHERE binding_id = $2", [
      legacySeal(OLD, "secret-of-a"),
      bindingA,
    ]);
    await sql("UPDATE signing_keys SET sealed_private_key = $1 WHERE kid = $2", [
      legacySeal(
        OLD,
        openSecret(before[`signing_keys.sealed_private_key:${kids[1]}`]!, sealContext("signingKey", { kid: kids[1]! })),
      ),
      kids[1],
    ]);
    // A normal read never opens the old format (it is bound to no row).
    await expect(resolveCallbackSecret(bindingA, "hooks")).rejects.toThrow(/old format/);

    const deploy = await run(["bin/run.mjs", "migrate", "deploy"], { AUTH_SECRET: OLD });
    expect(deploy.code, deploy.stderr).toBe(0);
    expect(deploy.stderr).toContain("Re-sealed 2 value(s)");
    expect(deploy.stderr).not.toContain("secret-of-a");

    const after = await snapshot();
    for (const v of Object.values(after)) expect(v).toMatch(/^v2\./);
    expect(await resolveCallbackSecret(bindingA, "hooks")).toBe("secret-of-a");
    expect(await activeSigningKey().then((k) => k.kid)).toBe(kids[1]);
    // Idempotent: nothing left in the old format, nothing changes.
    expect(await resealLegacyValues(client)).toEqual({ resealed: 0, unopenable: [] });
    expect(await snapshot()).toEqual(after);
  }, 120_000);

  it("an old value that does not open under the current secret is named and left unused, not fatal", async () => {
    const stray = legacySeal(STRAY, "lost");
    await sql("UPDATE binding_secrets SET sealed = $1 WHERE binding_id = $2", [stray, bindingB]);
    const report = await resealLegacyValues(client);
    expect(report).toEqual({
      resealed: 0,
      unopenable: [`binding_secrets.sealed (binding_id=${bindingB}, ref=hooks)`],
    });
    expect((await sql("SELECT sealed FROM binding_secrets WHERE binding_id = $1", [bindingB]))[0]?.sealed).toBe(stray);
    await expect(resolveCallbackSecret(bindingB, "hooks")).rejects.toThrow(/old format/);
    // Put it back, as the operator would by re-entering the secret.
    await sql("UPDATE binding_secrets SET sealed = $1 WHERE binding_id = $2", [
      sealSecret("secret-of-b", sealContext("bindingSecret", { binding_id: bindingB, ref: "hooks", ...destinationB })),
      bindingB,
    ]);
  });

  it("openLegacySecret is called only by the re-seal paths", () => {
    const hits: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(join(repoRoot, dir))) {
        const rel = join(dir, name);
        if (statSync(join(repoRoot, rel)).isDirectory()) {
          if (name !== "generated") walk(rel);
        } else if (/\.(ts|tsx)$/.test(name) && !/\.test\.ts$/.test(name)) {
          if (readFileSync(join(repoRoot, rel), "utf8").includes("openLegacySecret")) hits.push(rel);
        }
      }
    };
    for (const dir of ["lib", "app", "server", "workers", "cli", "components"]) walk(dir);
    expect(hits.sort()).toEqual(["lib/sealed/reseal.ts", "lib/sealed/rotate.ts", "lib/secrets.ts"]);
  });
});

describe("the secret's length", () => {
  it("a process with an AUTH_SECRET under 32 bytes refuses to start, saying why", async () => {
    // 31 bytes; and 16 characters that are 32 bytes in UTF-8 start fine (length as given, in bytes).
    const worker = await startHub({ databaseUrl: database.url, mode: "worker", env: { AUTH_SECRET: "x".repeat(31) } });
    expect(await worker.exited).toBe(1);
    expect(worker.output()).toMatch(/AUTH_SECRET: must be at least 32 bytes/);
    expect(worker.output()).not.toContain("x".repeat(31));
    const cli = await run(["bin/ma2h-hub.js", "signing-key", "rotate", "--json"], { AUTH_SECRET: "short" });
    expect(cli.code).not.toBe(0);
    expect(cli.json?.error?.message).toMatch(/AUTH_SECRET: must be at least 32 bytes/);
  }, 60_000);
});

describe("ma2h-hub secrets rotate --from-env", () => {
  /** Opens every sealed value with `key` for its own row; the failures, by row. */
  async function unopenableUnder(material: string): Promise<string[]> {
    const key = deriveSealKey(material);
    const failed: string[] = [];
    for (const p of SEAL_PURPOSES)
      for (const row of await lockedRows(client, p, false)) {
        try {
          openSecret(row.value, row.ctx, key);
        } catch {
          failed.push(row.label);
        }
      }
    return failed;
  }
  const env = { AUTH_SECRET: NEW, OLD_AUTH_SECRET: OLD };

  it("refuses without the old secret's variable, changing nothing", async () => {
    const before = await snapshot();
    const r = await rotate({ AUTH_SECRET: NEW });
    expect(r.code).toBe(2);
    expect(r.json.error).toEqual({
      code: "validation_error",
      message: expect.stringMatching(/OLD_AUTH_SECRET is not set/),
    });
    const same = await rotate({ AUTH_SECRET: OLD, OLD_AUTH_SECRET: OLD });
    expect(same.json.error.message).toMatch(/holds the current secret/);
    expect(await snapshot()).toEqual(before);
  }, 60_000);

  it("rolls everything back, naming the row, when a value opens under neither secret", async () => {
    const ctx = sealContext("bindingSecret", { binding_id: bindingB, ref: "hooks", ...destinationB });
    await sql("UPDATE binding_secrets SET sealed = $1 WHERE binding_id = $2", [
      sealSecret("secret-of-b", ctx, deriveSealKey(STRAY)),
      bindingB,
    ]);
    const before = await snapshot();
    const r = await rotate(env);
    expect(r.code).toBe(1);
    expect(r.json.error.message).toContain(`binding_secrets.sealed (binding_id=${bindingB}, ref=hooks)`);
    expect(r.json.error.message).toMatch(/nothing was changed/);
    expect(r.stdout + r.stderr).not.toContain("secret-of-b");
    // All or nothing: the rows before the bad one (binding A's, in catalogue order) are unchanged too.
    expect(await snapshot()).toEqual(before);
    await sql("UPDATE binding_secrets SET sealed = $1 WHERE binding_id = $2", [
      sealSecret("secret-of-b", ctx),
      bindingB,
    ]);
  }, 60_000);

  it("re-seals every value from the old secret to the new one; the old no longer opens any; a re-run is a no-op", async () => {
    const before = await snapshot();
    expect(Object.keys(before)).toHaveLength(10); // 2 binding secrets, 1 Standard Webhooks, 2 signing keys, 2 Slack, 1 Teams, VAPID, 1 push
    expect(await unopenableUnder(OLD)).toEqual([]);

    const r = await rotate(env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toEqual({
      secrets: {
        rotated: 10,
        already_current: 0,
        by_purpose: {
          auditSigningKey: 0, // no worker has run here: no audit key yet
          bindingSecret: 2,
          bindingStandardWebhooks: 1,
          signingKey: 2,
          slackBotToken: 1,
          slackSigningSecret: 1,
          teamsAppSecret: 1,
          vapidPrivateKey: 1,
          pushSubscriptionAuth: 1,
        },
      },
    });
    const after = await snapshot();
    for (const k of Object.keys(before)) expect(after[k]).not.toBe(before[k]);
    expect(await unopenableUnder(NEW)).toEqual([]);
    expect(await unopenableUnder(OLD)).toHaveLength(10);

    useSecret(NEW);
    expect(await resolveCallbackSecret(bindingA, "hooks")).toBe("secret-of-a");
    expect(await resolveCallbackSecret(bindingB, "hooks")).toBe("secret-of-b");
    expect(await webhooksSecretOf(bindingA)).toEqual({ on: true, secret: webhooksA });
    expect(await openConnection(accountId)).toMatchObject({
      botToken: "xoxb-bot-token",
      signingSecret: "signing0secret0value",
    });

    const again = await rotate(env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json.secrets).toMatchObject({ rotated: 0, already_current: 10 });
    expect(await snapshot()).toEqual(after);
  }, 120_000);
});

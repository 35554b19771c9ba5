/**
 * The `ma2h-hub` admin CLI's commands, each command line run in-process (cli/command-line.ts, the
 * function the binary calls) against real PostgreSQL: every command's JSON shape, its errors and exit
 * codes, concurrent runs, and that credentials are stored only hashed and secrets only sealed. What
 * only the real process shows — its exit status, stdin and environment, runs racing as separate
 * processes, --version — is test/cli-binary.test.ts.
 */
// covers: cli/commands.ts, cli/command-line.ts, cli/command.ts, lib/secrets.ts
import { cliInProcess } from "./support/cli-in-process";
import type { CliRun } from "./support/cli-run";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "./support/test-database";
import { hashCredential } from "../lib/secrets";

const database = useTestDatabase();

/** One command line, in this process; `input` is its stdin (for `--secret -`). */
function adminCli(args: string[], input?: string): Promise<CliRun> {
  return cliInProcess(args, { input });
}

/** With --json, stdout is exactly one line holding one JSON object, and nothing else. */
function expectOneObject(r: CliRun): void {
  expect(r.stdout.endsWith("\n") && r.stdout.trim().split("\n").length === 1, r.stdout).toBe(true);
  expect(r.json.unparseable).toBeUndefined();
}
const ok = async (...args: string[]) => {
  const r = await adminCli([...args, "--json"]);
  expect(r.code, r.stderr).toBe(0);
  expectOneObject(r);
  return r.json;
};
const fails = async (code: string, ...args: string[]) => {
  const r = await adminCli([...args, "--json"]);
  expect(r.code).not.toBe(0);
  expectOneObject(r);
  expect(Object.keys(r.json)).toEqual(["error"]);
  expect(r.json.error).toEqual({ code, message: expect.any(String) });
  return r;
};

async function sql(text: string): Promise<any[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

const KEY = /^ma2h_key_[A-Za-z0-9_-]{43}$/;
const plaintexts: string[] = [];

describe("accounts, users and tokens", () => {
  it("creates accounts and refuses duplicates and bad slugs", async () => {
    expect(await ok("account", "create", "acme")).toEqual({ account: { slug: "acme" } });
    expect(await ok("account", "create", "beta-2")).toEqual({ account: { slug: "beta-2" } });
    await Promise.all([
      fails("invalid_field", "account", "create", "acme"),
      fails("invalid_field", "account", "create", "Acme!"),
    ]);
  });

  it("adds users (one person in several accounts), refusing bad roles and taken handles", async () => {
    const args = ["--account", "acme", "--handle", "alice", "--role", "owner"];
    expect(await ok("user", "add", "Alice@Example.com", ...args)).toEqual({
      user: { email: "alice@example.com", handle: "alice", role: "owner" },
    });
    expect(
      await ok("user", "add", "alice@example.com", "--account", "beta-2", "--handle", "al", "--role", "viewer"),
    ).toEqual({
      user: { email: "alice@example.com", handle: "al", role: "viewer" },
    });
    const bob = (account: string, handle: string, role: string) => [
      "user",
      "add",
      "bob@example.com",
      "--account",
      account,
      "--handle",
      handle,
      "--role",
      role,
    ];
    const [, taken] = await Promise.all([
      fails("invalid_field", ...bob("acme", "bob", "boss")),
      fails("invalid_field", ...bob("acme", "alice", "member")),
      fails("invalid_field", ...bob("acme", "Bob!", "member")),
      fails("not_found", ...bob("nope", "bob", "member")),
    ]);
    expect(taken.json.error.message).toContain("handle alice is already taken");
  });

  it("changes a member's role and removes a member, never the last owner", async () => {
    await ok("user", "add", "carol@example.com", "--account", "acme", "--handle", "carol", "--role", "member");
    expect(await ok("user", "role", "carol", "--account", "acme", "--role", "admin")).toEqual({
      user: { handle: "carol", role: "admin", changed: true },
    });
    expect(await ok("user", "remove", "carol", "--account", "acme")).toEqual({
      user: { handle: "carol", removed: true, sessions_ended: 0 },
    });
    const [lastOwner, lastOwnerRemoval] = await Promise.all([
      fails("invalid_field", "user", "role", "alice", "--account", "acme", "--role", "member"),
      fails("invalid_field", "user", "remove", "alice", "--account", "acme"),
      fails("not_found", "user", "remove", "carol", "--account", "acme"),
      fails("invalid_field", "user", "role", "alice", "--account", "acme", "--role", "boss"),
    ]);
    expect(lastOwner.json.error.message).toContain("without an owner");
    expect(lastOwnerRemoval.json.error.message).toContain("without an owner");
    const trail = await sql(
      "SELECT event, actor FROM audit_events WHERE event LIKE 'member.%' AND detail->>'handle' = 'carol' ORDER BY id",
    );
    expect(trail).toEqual([
      { event: "member.added", actor: "system:cli" },
      { event: "member.role_changed", actor: "system:cli" },
      { event: "member.removed", actor: "system:cli" },
    ]);
  });

  it("creates and revokes personal access tokens", async () => {
    const created = await ok("token", "create", "--user", "alice@example.com");
    expect(created).toEqual({
      token: expect.stringMatching(/^ma2h_pat_[A-Za-z0-9_-]{43}$/),
      id: expect.stringMatching(/^pat_/),
    });
    plaintexts.push(created.token);
    expect(await ok("token", "revoke", created.id)).toEqual({ token: { id: created.id, revoked: true } });
    await Promise.all([
      fails("not_found", "token", "create", "--user", "nobody@example.com"),
      fails("not_found", "token", "revoke", "pat_unknown"),
    ]);
  });
});

describe("account settings", () => {
  it("account set switches agent session visibility (§16.4), audited as system:cli; bad input changes nothing", async () => {
    const [{ id: acmeId }] = await sql("SELECT id FROM accounts WHERE slug = 'acme'");
    const visibility = async () =>
      (await sql(`SELECT agent_session_visibility AS v FROM accounts WHERE id = '${acmeId}'`))[0].v;
    expect(await visibility()).toBe(false); // off by default
    const set = (value: string) => ok("account", "set", "acme", "--agent-session-visibility", value);
    expect(await set("on")).toEqual({
      account: { slug: "acme", agent_session_visibility: true, changed: true, effective: true },
    });
    expect(await visibility()).toBe(true);
    expect((await set("on")).account).toMatchObject({ agent_session_visibility: true, changed: false });
    expect((await set("off")).account).toMatchObject({
      agent_session_visibility: false,
      changed: true,
      effective: false,
    });
    const audit = await sql(
      `SELECT actor, detail FROM audit_events WHERE account_id = '${acmeId}'
         AND event = 'account.session_visibility_changed' ORDER BY id`,
    );
    expect(audit).toEqual([
      { actor: "system:cli", detail: { from: false, to: true } },
      { actor: "system:cli", detail: { from: true, to: false } },
    ]);

    const [maybe, missing, unknown] = await Promise.all([
      fails("validation_error", "account", "set", "acme", "--agent-session-visibility", "maybe"),
      fails("validation_error", "account", "set", "acme"),
      fails("not_found", "account", "set", "no-such-account", "--agent-session-visibility", "on"),
    ]);
    expect([maybe.code, missing.code, unknown.code]).toEqual([2, 2, 1]);
    expect(await visibility()).toBe(false);
    const plain = await adminCli(["account", "set", "acme", "--agent-session-visibility", "off"]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toBe("unchanged: agents of acme see only their own sessions\n");
  });

  it("account set --inter-agent opts the account in and out (§8.0), audited", async () => {
    const [{ id: acmeId }] = await sql("SELECT id FROM accounts WHERE slug = 'acme'");
    const optedIn = async () =>
      (await sql(`SELECT inter_agent_enabled AS v FROM accounts WHERE id = '${acmeId}'`))[0].v;
    expect(await optedIn()).toBe(false); // off by default: the leg is account-opt-in
    expect(await ok("account", "set", "acme", "--inter-agent", "on")).toEqual({
      account: { slug: "acme", inter_agent: true, changed: true, effective: true },
    });
    // Under the deployment ceiling off (MA2H_INTER_AGENT in the CLI's environment): test/cli-binary.test.ts.
    const plain = await adminCli(["account", "set", "acme", "--inter-agent", "on"]);
    expect(plain.stdout).toBe("unchanged: agents of acme may message each other\n");
    expect((await ok("account", "set", "acme", "--inter-agent", "off")).account).toEqual({
      slug: "acme",
      inter_agent: false,
      changed: true,
      effective: false,
    });
    expect(
      await sql(
        `SELECT actor, detail FROM audit_events WHERE account_id = '${acmeId}'
           AND event = 'account.inter_agent_changed' ORDER BY id`,
      ),
    ).toEqual([
      { actor: "system:cli", detail: { from: false, to: true } },
      { actor: "system:cli", detail: { from: true, to: false } },
    ]);
    const [bad, both] = await Promise.all([
      fails("validation_error", "account", "set", "acme", "--inter-agent", "yes"),
      fails("validation_error", "account", "set", "acme", "--inter-agent", "on", "--agent-session-visibility", "on"),
    ]);
    expect([bad.code, both.code]).toEqual([2, 2]);
    expect(await optedIn()).toBe(false);
  });

  it("account set --email-answer-sensitive-without-sign-in relaxes the sign-in for high/urgent and restricted asks, audited", async () => {
    const [{ id: acmeId }] = await sql("SELECT id FROM accounts WHERE slug = 'acme'");
    expect(await ok("account", "set", "acme", "--email-answer-sensitive-without-sign-in", "on")).toEqual({
      account: { slug: "acme", email_answer_sensitive_without_sign_in: true, changed: true, effective: true },
    });
    const again = await adminCli(["account", "set", "acme", "--email-answer-sensitive-without-sign-in", "on"]);
    expect(again.stdout).toBe(
      "unchanged: in acme, high/urgent and restricted asks may be answered from an email without signing in\n",
    );
    expect((await ok("account", "set", "acme", "--email-answer-sensitive-without-sign-in", "off")).account).toEqual({
      slug: "acme",
      email_answer_sensitive_without_sign_in: false,
      changed: true,
      effective: false,
    });
    expect(
      await sql(
        `SELECT actor, detail FROM audit_events WHERE account_id = '${acmeId}'
           AND event = 'notification.email_answer_changed' ORDER BY id`,
      ),
    ).toEqual([
      { actor: "system:cli", detail: { sensitive: true, enabled: true } },
      { actor: "system:cli", detail: { sensitive: true, enabled: false } },
    ]);
    const bad = await fails(
      "validation_error",
      "account",
      "set",
      "acme",
      "--email-answer-sensitive-without-sign-in",
      "1",
    );
    expect(bad.code).toBe(2);
  });
});

describe("agents and keys", () => {
  let firstKey: string;

  it("creates an agent whose id contains a slash", async () => {
    const r = await ok("agent", "create", "deploybot/dev-team", "--account", "acme");
    expect(r).toEqual({
      agent: { id: "deploybot/dev-team", sponsors: [] },
      key: { id: expect.stringMatching(/^key_/) },
      api_key: expect.stringMatching(KEY),
    });
    expect(Object.keys(r)).toEqual(["agent", "key", "api_key"]);
    firstKey = r.key.id;
    plaintexts.push(r.api_key);
    await Promise.all([
      fails("invalid_field", "agent", "create", "deploybot/dev-team", "--account", "acme"),
      fails("not_found", "agent", "create", "x", "--account", "missing"),
    ]);
  });

  it("lists, rotates and revokes keys", async () => {
    const rotated = await ok("key", "rotate", "deploybot/dev-team");
    expect(rotated).toEqual({ key: { id: expect.stringMatching(/^key_/) }, api_key: expect.stringMatching(KEY) });
    plaintexts.push(rotated.api_key);
    expect(await ok("key", "revoke", firstKey)).toEqual({ key: { id: firstKey, revoked: true } });
    const { keys } = await ok("key", "list", "deploybot/dev-team", "--account", "acme");
    expect(keys).toEqual([
      { id: firstKey, created_at: expect.any(String), revoked_at: expect.any(String) },
      { id: rotated.key.id, created_at: expect.any(String), revoked_at: null },
    ]);
    // The stored times, to the millisecond, in both outputs (the listing reads them on the pool
    // beneath Prisma, lib/principals/key-list.sql.ts: the same Dates the client gave).
    const stored = await sql(
      `SELECT k.id, k.created_at, k.revoked_at FROM api_keys k JOIN agents a ON a.id = k.agent_row_id
        WHERE a.agent_id = 'deploybot/dev-team' ORDER BY k.created_at, k.id`,
    );
    expect(keys).toEqual(
      stored.map((k) => ({
        id: k.id,
        created_at: k.created_at.toISOString(),
        revoked_at: k.revoked_at?.toISOString() ?? null,
      })),
    );
    const text = await adminCli(["key", "list", "deploybot/dev-team", "--account", "acme"]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toBe(
      `${firstKey}  created ${keys[0].created_at}  revoked ${keys[0].revoked_at}\n` +
        `${rotated.key.id}  created ${keys[1].created_at}  active\n`,
    );
    await Promise.all([
      fails("not_found", "key", "revoke", "key_unknown"),
      fails("not_found", "key", "list", "no-such-agent"),
    ]);
  });

  it("requires --account when the agent id exists in two accounts", async () => {
    await ok("agent", "create", "deploybot/dev-team", "--account", "beta-2");
    const r = await fails("invalid_field", "key", "list", "deploybot/dev-team");
    expect(r.json.error.message).toContain("--account");
    expect((await ok("key", "list", "deploybot/dev-team", "--account", "beta-2")).keys).toHaveLength(1);
  });

  it("creates agents concurrently (in one process; separate processes racing: test/cli-binary.test.ts)", async () => {
    const runs = await Promise.all(
      [1, 2, 3, 4, 5].map((i) => adminCli(["agent", "create", `par/${i}`, "--account", "acme", "--json"])),
    );
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0, 0]);
    expect(new Set(runs.map((r) => r.json.api_key)).size).toBe(5);
    const racing = await Promise.all([1, 2, 3].map(() => adminCli(["account", "create", "racy", "--json"])));
    expect(racing.filter((r) => r.code === 0)).toHaveLength(1);
    expect(racing.filter((r) => r.json.error?.code === "invalid_field")).toHaveLength(2);
  });

  it("agent senders sets and prints who may message an agent (§13.5), audited; unknown ids are reported", async () => {
    const A = "deploybot/dev-team"; // in acme and beta-2 since the tests above
    const at = ["--account", "acme"];
    const [ambiguous, shown] = await Promise.all([
      fails("invalid_field", "agent", "senders", A, "--any"),
      ok("agent", "senders", A, ...at),
    ]);
    expect(ambiguous.json.error.message).toContain("--account");
    expect(shown).toEqual({ agent: { id: A, account: "acme", senders: { any: true }, unknown: [] } }); // the default
    expect(await ok("agent", "senders", A, ...at, "--allow", "par/1, later-bot,par/1")).toEqual({
      agent: {
        id: A,
        account: "acme",
        senders: { allow: ["par/1", "later-bot"] },
        changed: true,
        unknown: ["later-bot"],
      },
    });
    const plain = await adminCli(["agent", "senders", A, ...at, "--allow", "par/1,later-bot"]);
    expect(plain.stdout).toBe(
      `unchanged: ${A} (acme) may be messaged by only par/1, later-bot (not agents of acme: later-bot)\n`,
    );
    expect((await ok("agent", "senders", A, ...at, "--allow", "")).agent).toMatchObject({
      senders: { allow: [] },
      changed: true,
    });
    const [bad, hash, both, stray, unknownAgent, beta] = await Promise.all([
      fails("invalid_field", "agent", "senders", A, ...at, "--allow", "ok,has space"),
      fails("invalid_field", "agent", "senders", A, ...at, "--allow", "a#b"),
      fails("validation_error", "agent", "senders", A, ...at, "--allow", "x", "--any"),
      fails("validation_error", "agent", "senders", A, ...at, "--allow", "x,"),
      fails("not_found", "agent", "senders", "no/such", ...at, "--any"),
      ok("agent", "senders", A, "--account", "beta-2"),
    ]);
    expect([bad.code, hash.code, both.code, stray.code, unknownAgent.code]).toEqual([1, 1, 2, 2, 1]);
    expect(beta.agent.senders).toEqual({ any: true }); // beta-2's agent of the same id is untouched
    expect((await ok("agent", "senders", A, ...at, "--any")).agent).toMatchObject({ senders: { any: true } });
    const [{ id: acmeId }] = await sql("SELECT id FROM accounts WHERE slug = 'acme'");
    const audit = await sql(
      `SELECT actor, detail FROM audit_events WHERE account_id = '${acmeId}'
         AND event = 'agent.senders_changed' ORDER BY id`,
    );
    const listed = { allow: ["par/1", "later-bot"] };
    expect(audit).toEqual([
      { actor: "system:cli", detail: { agent_id: A, from: { any: true }, to: listed } },
      { actor: "system:cli", detail: { agent_id: A, from: listed, to: { allow: [] } } },
      { actor: "system:cli", detail: { agent_id: A, from: { allow: [] }, to: { any: true } } },
    ]);
  });
});

describe("callback bindings", () => {
  const SECRET = "PLAINTEXT_CALLBACK_SECRET_42";

  it("adds, lists and revokes bindings without ever printing the secret", async () => {
    const added = await adminCli([
      "binding",
      "add",
      "--agent",
      "deploybot/dev-team",
      "--account",
      "acme",
      "--origin",
      "HTTPS://Hooks.Example.com:443",
      "--path-prefix",
      "/ma2h/",
      "--secret-ref",
      "hmac-main",
      "--secret",
      SECRET,
      "--json",
    ]);
    expect(added.code).toBe(0);
    const binding = {
      id: expect.stringMatching(/^bnd_/),
      agent: "deploybot/dev-team",
      origin: "https://hooks.example.com",
      path_prefix: "/ma2h",
      secret_refs: ["hmac-main"],
      standard_webhooks: false,
    };
    expect(added.json).toEqual({ binding });
    const fromStdin = await adminCli(
      [
        "binding",
        "add",
        "--agent",
        "par/1",
        "--origin",
        "http://127.0.0.1:8080",
        "--secret-ref",
        "r",
        "--secret",
        "-",
        "--json",
      ],
      `${SECRET}\n`,
    );
    expect(fromStdin.json.binding).toMatchObject({ origin: "http://127.0.0.1:8080", path_prefix: "/" });
    expect(added.stdout + added.stderr + fromStdin.stdout + fromStdin.stderr).not.toContain(SECRET);
    expect(await ok("binding", "list", "--agent", "deploybot/dev-team", "--account", "acme")).toEqual({
      bindings: [binding],
    });
    expect(await ok("binding", "revoke", added.json.binding.id)).toEqual({
      binding: { id: added.json.binding.id, revoked: true },
    });
    expect(await ok("binding", "list", "--agent", "deploybot/dev-team", "--account", "acme")).toEqual({ bindings: [] });
    await Promise.all([
      fails(
        "invalid_field",
        "binding",
        "add",
        "--agent",
        "par/1",
        "--origin",
        "https://a.example/path",
        "--secret-ref",
        "r",
        "--secret",
        "x",
      ),
      fails("invalid_field", "binding", "list", "--agent", "deploybot/dev-team"),
      fails("not_found", "binding", "revoke", "bnd_unknown"),
    ]);
  });

  it("rotates a binding's secret: add-secret, then remove-secret of the old ref (never the last)", async () => {
    const NEW_SECRET = "PLAINTEXT_ROTATED_SECRET_43";
    const added = await ok(
      "binding",
      "add",
      "--agent",
      "par/1",
      "--origin",
      "https://rotate.example",
      "--secret-ref",
      "hmac-2026",
      "--secret",
      SECRET,
    );
    const id = added.binding.id as string;
    const second = await adminCli(
      ["binding", "add-secret", id, "--secret-ref", "hmac-2027", "--secret", "-", "--json"],
      `${NEW_SECRET}\n`,
    );
    expect(second.code, second.stderr).toBe(0);
    expectOneObject(second);
    expect(second.json).toEqual({ secret: { binding_id: id, ref: "hmac-2027" } });
    expect(second.stdout + second.stderr).not.toContain(NEW_SECRET);
    const listed = (await ok("binding", "list", "--agent", "par/1")).bindings.find((b: { id: string }) => b.id === id);
    expect(listed.secret_refs).toEqual(["hmac-2026", "hmac-2027"]);
    await fails("invalid_field", "binding", "add-secret", id, "--secret-ref", "hmac-2027", "--secret", "again");
    await fails("not_found", "binding", "add-secret", "bnd_unknown", "--secret-ref", "x", "--secret", "y");
    await fails("validation_error", "binding", "add-secret", id, "--secret-ref", "x");

    expect(await ok("binding", "remove-secret", id, "--secret-ref", "hmac-2026")).toEqual({
      secret: { binding_id: id, ref: "hmac-2026", removed: true },
    });
    const after = (await ok("binding", "list", "--agent", "par/1")).bindings.find((b: { id: string }) => b.id === id);
    expect(after.secret_refs).toEqual(["hmac-2027"]);
    await fails("not_found", "binding", "remove-secret", id, "--secret-ref", "hmac-2026");
    await fails("invalid_field", "binding", "remove-secret", id, "--secret-ref", "hmac-2027"); // the last one
    const audit = await sql(
      "SELECT event, detail::text AS detail FROM audit_events WHERE event LIKE 'binding.secret_%'",
    );
    expect(audit.map((r) => r.event).sort()).toEqual(["binding.secret_added", "binding.secret_removed"]);
    expect(audit.map((r) => r.detail).join(" ")).not.toContain(NEW_SECRET);
    plaintexts.push(NEW_SECRET);
  });

  it("stores API keys and PATs hashed and secrets sealed — no plaintext anywhere in the database", async () => {
    const keys = await sql("SELECT key_hash FROM api_keys");
    for (const k of plaintexts.filter((p) => p.startsWith("ma2h_key_"))) {
      expect(keys.map((r) => r.key_hash)).toContain(hashCredential(k));
    }
    const tables = await sql("SELECT tablename FROM pg_tables WHERE schemaname = 'public'");
    for (const { tablename } of tables) {
      const [row] = await sql(`SELECT coalesce(string_agg(t::text, ' '), '') AS dump FROM "${tablename}" t`);
      for (const p of [...plaintexts, SECRET]) expect(row.dump, tablename).not.toContain(p);
    }
    const sealed = await sql("SELECT sealed FROM binding_secrets");
    expect(sealed.length).toBeGreaterThan(0);
    for (const r of sealed) expect(r.sealed).toMatch(/^v2\./);
    const audit = await sql("SELECT event FROM audit_events WHERE actor = 'system:cli'");
    expect(audit.map((r) => r.event)).toEqual(
      expect.arrayContaining([
        "account.created",
        "member.added",
        "token.created",
        "token.revoked",
        "agent.created",
        "key.rotated",
        "key.revoked",
        "binding.added",
        "binding.revoked",
      ]),
    );
  });
});

describe("usage", () => {
  it("prints help, readable lines without --json, and usage errors with exit 2", async () => {
    const help = await adminCli(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("binding add --agent");
    const plain = await adminCli(["key", "list", "deploybot/dev-team", "--account", "acme"]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/^key_\S+ {2}created /);
    const bad = [["frobnicate", "all"], ["account", "create"], ["account", "create", "x", "--bogus"], []];
    const runs = await Promise.all(bad.map((args) => adminCli([...args, "--json"])));
    for (const [i, r] of runs.entries()) {
      expect(r.code, bad[i]!.join(" ")).toBe(2);
      expect(r.json.error.code).toBe("validation_error");
    }
  });
});

/**
 * The `ma2h-hub` binary itself (bin/ma2h-hub.js → cli/ma2h-hub.ts), started as the operator starts
 * it: what only a real process shows — the exit status as the OS sees it, help and usage errors on its
 * streams, its stdin (`--secret -`, `policy apply -`), its environment (MA2H_INTER_AGENT, --version's
 * MA2H_COMMIT without a database), separate processes racing on the database, and a few commands end
 * to end. Each command's own behaviour is tested in-process (test/cli.test.ts, cli-groups, cli-policy).
 */
// covers: cli/ma2h-hub.ts, bin/ma2h-hub.js, cli/command-line.ts
import { type CliRun, runCli } from "./support/cli-run";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { HUB_VERSION } from "@ma2h/protocol/versions";
import { useTestDatabase } from "./support/test-database";
import { db } from "../lib/db";
import { hashCredential } from "../lib/secrets";

const root = fileURLToPath(new URL("..", import.meta.url));
const database = useTestDatabase();

/** The binary, a child process on the file's database; `input` is written to its stdin. */
function cli(args: string[], input?: string, env: Record<string, string> = {}): Promise<CliRun> {
  return runCli(args, { databaseUrl: database.url, input, env });
}

/** With --json, stdout is exactly one line holding one JSON object, and nothing else. */
function expectOneObject(r: CliRun): void {
  expect(r.stdout.endsWith("\n") && r.stdout.trim().split("\n").length === 1, r.stdout).toBe(true);
  expect(r.json.unparseable).toBeUndefined();
}

const KEY = /^ma2h_key_[A-Za-z0-9_-]{43}$/;

describe("end to end", () => {
  it("creates an account, a user, an agent and a binding: one JSON object each, exit 0; the key stored hashed", async () => {
    const account = await cli(["account", "create", "acme", "--json"]);
    expect(account.code, account.stderr).toBe(0);
    expectOneObject(account);
    expect(account.json).toEqual({ account: { slug: "acme" } });
    const user = await cli([
      "user",
      "add",
      "alice@acme.test",
      "--account",
      "acme",
      "--handle",
      "alice",
      "--role",
      "owner",
    ]);
    expect(user.code, user.stderr).toBe(0);
    expect(user.stdout).toBe("alice@acme.test added to acme as alice (owner)\n");
    const agent = await cli(["agent", "create", "deploybot/prod", "--account", "acme", "--json"]);
    expect(agent.code, agent.stderr).toBe(0);
    expectOneObject(agent);
    expect(agent.json).toEqual({
      agent: { id: "deploybot/prod", sponsors: [] },
      key: { id: expect.stringMatching(/^key_/) },
      api_key: expect.stringMatching(KEY),
    });
    const stored = await db().apiKey.findMany({ select: { keyHash: true } });
    expect(stored.map((k) => k.keyHash)).toEqual([hashCredential(agent.json.api_key)]);
  });

  it("reads --secret - from its stdin, never printing it", async () => {
    const SECRET = "PLAINTEXT_STDIN_SECRET_44";
    const added = await cli(
      [
        "binding",
        "add",
        "--agent",
        "deploybot/prod",
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
    expect(added.code, added.stderr).toBe(0);
    expectOneObject(added);
    expect(added.json.binding).toMatchObject({ origin: "http://127.0.0.1:8080", path_prefix: "/", secret_refs: ["r"] });
    expect(added.stdout + added.stderr).not.toContain(SECRET);
    const sealed = await db().bindingSecret.findMany({ select: { sealed: true } });
    expect(sealed).toHaveLength(1);
    expect(sealed[0]!.sealed).toMatch(/^v2\./);
    expect(sealed[0]!.sealed).not.toContain(SECRET);
  });

  it("reads a policy file named - from its stdin; a refused one names <stdin> on stderr with exit 1", async () => {
    const policy = "version: 1\nrules:\n  - name: prod\n    match: { tags_any: [prod] }\n    assign: [human:alice]\n";
    const applied = await cli(["policy", "apply", "-", "--account", "acme", "--json"], policy);
    expect(applied.code, applied.stderr).toBe(0);
    expectOneObject(applied);
    expect(applied.json).toMatchObject({ changed: true, dry_run: false, revision: 1 });
    expect(applied.json.diff.rules.added).toEqual(["prod"]);
    const refused = await cli(["policy", "apply", "-", "--account", "acme"], policy.replace("alice", "zed"));
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain("<stdin>:5:14: human:zed is not a member of this account\n");
  });
});

describe("the process", () => {
  it("exits 0 with --help on stdout, 2 with the usage on stderr for a bad command line, 1 for a refusal", async () => {
    const [help, bad, badJson, missing] = await Promise.all([
      cli(["--help"]),
      cli(["frobnicate", "all"]),
      cli(["account", "create", "--json"]),
      cli(["token", "revoke", "pat_unknown", "--json"]),
    ]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: ma2h-hub <command> \[--json\]/);
    expect(help.stdout).toContain("binding add --agent");
    expect(help.stderr).toBe("");
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toMatch(/^ma2h-hub: validation_error: unknown command: frobnicate all\nusage: ma2h-hub /);
    expect(badJson.code).toBe(2);
    expectOneObject(badJson);
    expect(badJson.json).toEqual({
      error: { code: "validation_error", message: "usage: ma2h-hub account create <slug>" },
    });
    expect(missing.code).toBe(1);
    expectOneObject(missing);
    expect(missing.json.error.code).toBe("not_found");
  });

  it("account set --inter-agent: the account's opt-in is not effective under MA2H_INTER_AGENT off (§8.0)", async () => {
    expect((await cli(["account", "set", "acme", "--inter-agent", "on", "--json"])).json.account).toEqual({
      slug: "acme",
      inter_agent: true,
      changed: true,
      effective: true,
    });
    // The deployment ceiling off: the account's consent stands, the leg stays shut.
    const [ceilingOff, plain] = await Promise.all([
      cli(["account", "set", "acme", "--inter-agent", "on", "--json"], undefined, { MA2H_INTER_AGENT: "0" }),
      cli(["account", "set", "acme", "--inter-agent", "on"], undefined, { MA2H_INTER_AGENT: "false" }),
    ]);
    expect(ceilingOff.json).toEqual({ account: { slug: "acme", inter_agent: true, changed: false, effective: false } });
    expect(plain.stdout).toBe(
      "unchanged: agents of acme may message each other (no effect: MA2H_INTER_AGENT is off on this Hub)\n",
    );
  });

  it("creates agents concurrently: separate processes racing on the database's unique constraints", async () => {
    const runs = await Promise.all(
      [1, 2, 3, 4, 5].map((i) => cli(["agent", "create", `par/${i}`, "--account", "acme", "--json"])),
    );
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0, 0]);
    expect(new Set(runs.map((r) => r.json.api_key)).size).toBe(5);
    const racing = await Promise.all([1, 2, 3].map(() => cli(["account", "create", "racy", "--json"])));
    expect(racing.filter((r) => r.code === 0)).toHaveLength(1);
    expect(racing.filter((r) => r.json.error?.code === "invalid_field")).toHaveLength(2);
  });

  it("key list and binding list load no Prisma client; a command that writes does", async () => {
    // A preload that reports, as the process exits, the Prisma packages it loaded: the client's runtime
    // is CommonJS, so it is in require.cache however it was imported (bundle or sources).
    const dir = mkdtempSync(join(tmpdir(), "ma2h-cli-loads-"));
    const preload = join(dir, "prisma-loads.mjs");
    writeFileSync(
      preload,
      [
        'import { createRequire } from "node:module";',
        'import { writeSync } from "node:fs";',
        "const require = createRequire(import.meta.url);",
        'process.on("exit", () => {',
        '  const prisma = Object.keys(require.cache).filter((file) => file.includes("/@prisma/client/"));',
        '  writeSync(2, "prisma-loads " + JSON.stringify(prisma) + "\\n");',
        "});",
      ].join("\n"),
    );
    const env = { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import=${pathToFileURL(preload).href}`.trim() };
    const prismaLoads = (r: CliRun): string[] | null => {
      const line = /^prisma-loads (.*)$/m.exec(r.stderr);
      return line ? (JSON.parse(line[1] as string) as string[]) : null;
    };
    try {
      const [keys, bindings, rotated] = await Promise.all([
        cli(["key", "list", "deploybot/prod", "--json"], undefined, env),
        cli(["binding", "list", "--agent", "deploybot/prod", "--json"], undefined, env),
        cli(["key", "rotate", "deploybot/prod", "--json"], undefined, env),
      ]);
      expect(keys.code, keys.stderr).toBe(0);
      expect(keys.json.keys.length).toBeGreaterThan(0);
      expect(bindings.code, bindings.stderr).toBe(0);
      expect(bindings.json.bindings).toHaveLength(1);
      expect(rotated.code, rotated.stderr).toBe(0);
      expect(prismaLoads(keys)).toEqual([]);
      expect(prismaLoads(bindings)).toEqual([]);
      // the probe does see the client where a command loads it
      expect(prismaLoads(rotated)).toContainEqual(expect.stringContaining("/@prisma/client/runtime/"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("--version reports the release and the commit (MA2H_COMMIT over the checkout's HEAD) without a database", async () => {
    const { version } = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as { version: string };
    const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
    // No database at all: --version opens nothing.
    const env = { DATABASE_URL: "postgresql://postgres@127.0.0.1:1/none" };
    const json = await cli(["--version", "--json"], undefined, env);
    expect(json.code, json.stderr).toBe(0);
    expectOneObject(json);
    expect(json.json).toEqual({ version, commit: head, ma2h_version: HUB_VERSION });
    const text = await cli(["-V"], undefined, env);
    expect(text.stdout.trim()).toBe(`ma2h-hub ${version} (commit ${head.slice(0, 12)}; MA2H ${HUB_VERSION})`);
    const stamped = await cli(["--version", "--json"], undefined, { ...env, MA2H_COMMIT: "0123abcd".repeat(5) });
    expect(stamped.json.commit).toBe("0123abcd".repeat(5));
    // A malformed MA2H_COMMIT is not reported as if it were a commit.
    const junk = await cli(["--version", "--json"], undefined, { ...env, MA2H_COMMIT: "not a commit" });
    expect(junk.json.commit).toBe(head);
  });
});

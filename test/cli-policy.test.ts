/**
 * `ma2h-hub policy export|apply|test` (policy as code, docs/policies.md), each command line run
 * in-process (cli/command-line.ts, the function the binary calls; test/cli-binary.test.ts reads a
 * policy from the real process's stdin) against a real PostgreSQL database: an export applied back
 * is no change (no new revision, no audit row); a bad file — YAML syntax, unknown keys, bad
 * references, a repeated rule name, people and groups the account does not have — is refused whole,
 * every problem on its `file:line:col`, and nothing changes; `--dry-run` changes nothing; a real
 * apply writes its `policy.applied` audit row as `system:cli` with the diff; and the tester's answer
 * for an ask is what the live submit records.
 */
// covers: cli/policy-commands.ts, cli/command-line.ts, cli/command.ts
import { cliInProcess } from "./support/cli-in-process";
import type { CliRun } from "./support/cli-run";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "./support/test-database";
import { buildEnvelope } from "./support/envelope";
import { db } from "../lib/db";
import { submitMessage } from "../lib/messages/submit";
import { routingOf } from "../lib/policies/routing";
import { createAccount } from "../lib/principals/accounts";
import { createAgent } from "../lib/principals/agents";
import { authenticate, requireAgent } from "../lib/principals/authenticate";
import { addUser } from "../lib/principals/users";

useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), "ma2h-cli-policy-"));

/** The admin CLI's command line, run in this process; `input` is its stdin (for a file named `-`). */
function adminCli(args: string[], input?: string): Promise<CliRun> {
  return cliInProcess(args, { input });
}

const ACME = ["--account", "acme"];
/** A file in the test's directory, its path. */
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const POLICY = `version: 1
groups:
  sre: [human:alice, human:bob]
rules:
  - name: prod-deploys
    match: { agent: "deploybot/*", tags_any: [prod], verb: ask, mode: [confirm, select] }
    assign: [group:sre, human:carol]
    email_answers: false
  - name: urgent
    match: { priority: urgent }
    assign: [human:olga, group:sre]
`;

let acmeId: string;
let deployKey: string;

async function lastAuditId(): Promise<bigint> {
  const row = await db().auditEvent.findFirst({ orderBy: { id: "desc" }, select: { id: true } });
  return row?.id ?? 0n;
}
/** Everything an apply could have touched. */
async function state() {
  const q = db();
  return {
    audit: await lastAuditId(),
    policy: await q.accountPolicy.findMany(),
    groups: await q.accountGroup.findMany({ orderBy: { id: "asc" } }),
    members: await q.groupMember.findMany({ orderBy: [{ groupId: "asc" }, { membershipId: "asc" }] }),
  };
}

beforeAll(async () => {
  acmeId = (await createAccount("acme")).id;
  await createAccount("beta");
  for (const [h, role] of [
    ["olga", "owner"],
    ["alice", "member"],
    ["bob", "member"],
    ["carol", "member"],
    ["vic", "viewer"],
  ] as const)
    await addUser(`${h}@acme.test`, "acme", h, role);
  await addUser("dave@beta.test", "beta", "dave", "owner");
  deployKey = (await createAgent("deploybot/prod", "acme")).api_key;
});

describe("ma2h-hub policy apply and export", () => {
  it("dry run changes nothing; an apply is audited as system:cli with its diff; its export applied back is no change", async () => {
    const policyFile = file("policy.yaml", POLICY);
    const before = await state();
    const [dry, empty] = await Promise.all([
      adminCli(["policy", "apply", policyFile, ...ACME, "--dry-run", "--json"]),
      adminCli(["policy", "export", ...ACME, "--json"]),
    ]);
    expect(dry.code, dry.stderr).toBe(0);
    const diff = {
      rules: { added: ["prod-deploys", "urgent"], removed: [], changed: [] },
      groups: {
        created: ["sre"],
        added: [
          { group: "sre", person: "human:alice" },
          { group: "sre", person: "human:bob" },
        ],
        removed: [],
      },
    };
    expect(dry.json).toEqual({ changed: true, dry_run: true, revision: 0, diff });
    // The default policy, as a file: apply it and nothing changes.
    expect(empty.json).toEqual({ version: 1, groups: {}, rules: [] });
    expect(await state()).toEqual(before);

    const applied = await adminCli(["policy", "apply", policyFile, ...ACME]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toBe(
      [
        "applied: the approval policy of acme is now revision 1:",
        "  rules added: prod-deploys, urgent",
        "  groups created: sre",
        "  group sre added: human:alice, human:bob",
        "",
      ].join("\n"),
    );
    const audit = await db().auditEvent.findMany({
      where: { accountId: acmeId, id: { gt: before.audit } },
      orderBy: { id: "asc" },
      select: { actor: true, event: true, detail: true },
    });
    expect(audit.every((r) => r.actor === "system:cli")).toBe(true);
    expect(audit.map((r) => r.event)).toEqual([
      "group.created",
      "group.member_added",
      "group.member_added",
      "policy.applied",
    ]);
    expect(audit.at(-1)?.detail).toEqual({ revision: 1, ...diff });

    // The export: as YAML on stdout (with its header), into a file, and as JSON.
    const out = join(dir, "exported.yaml");
    const [text, written, asJson] = await Promise.all([
      adminCli(["policy", "export", ...ACME]),
      adminCli(["policy", "export", ...ACME, "--out", out, "--json"]),
      adminCli(["policy", "export", ...ACME, "--json"]),
    ]);
    expect(text.code, text.stderr).toBe(0);
    const header = text.stdout.split("\n").slice(0, 2);
    expect(header[0]).toMatch(
      /^# The approval policy of account acme, revision 1; last applied by system:cli at \d{4}-\d\d-\d\dT[\d:.]+Z\.$/,
    );
    expect(header[1]).toBe("# Apply it with: ma2h-hub policy apply <this file> --account acme [--dry-run]");
    expect(written.json).toEqual({ out, revision: 1 });
    expect(readFileSync(out, "utf8")).toBe(text.stdout);
    expect(asJson.json).toEqual({
      version: 1,
      groups: { sre: ["human:alice", "human:bob"] },
      rules: [
        {
          name: "prod-deploys",
          match: { agent: "deploybot/*", tags_any: ["prod"], verb: ["ask"], mode: ["confirm", "select"] },
          assign: ["group:sre", "human:carol"],
          email_answers: false,
        },
        { name: "urgent", match: { priority: "urgent" }, assign: ["human:olga", "group:sre"] },
      ],
    });

    // Round trip: the YAML export, and the JSON one through stdin (JSON is YAML), are no change.
    const after = await state();
    const noChange = { changed: false, dry_run: false, revision: 1, diff: expect.any(Object) };
    const [again, viaStdin, edited] = await Promise.all([
      adminCli(["policy", "apply", out, ...ACME]),
      adminCli(["policy", "apply", "-", ...ACME, "--json"], asJson.stdout),
      // An edit, dry run: a rule changed, one removed, a person out of a group.
      adminCli(
        [
          "policy",
          "apply",
          file(
            "edited.yaml",
            POLICY.replace("[human:alice, human:bob]", "[human:alice]")
              .replace("email_answers: false", "email_answers: true")
              .split("  - name: urgent")[0] as string,
          ),
          ...ACME,
          "--dry-run",
        ],
        undefined,
      ),
    ]);
    expect(again.stdout).toBe("no change: the approval policy of acme is revision 1 already\n");
    expect(viaStdin.json).toEqual(noChange);
    expect(viaStdin.json.diff).toEqual({
      rules: { added: [], removed: [], changed: [] },
      groups: { created: [], added: [], removed: [] },
    });
    expect(edited.stdout).toBe(
      [
        "dry run, nothing changed: applying would change the approval policy of acme (revision 1):",
        "  rules changed: prod-deploys",
        "  rules removed: urgent",
        "  group sre removed: human:bob",
        "",
      ].join("\n"),
    );
    expect(await state()).toEqual(after);
  });
});

describe("refused files", () => {
  it("a bad file is refused whole, every problem on its line and column; nothing changes", async () => {
    const before = await state();
    const schema = file(
      "schema.yaml",
      `version: 1
groups:
  sre: [human:alice]
rules:
  - name: deploys
    match: { agent: "deploybot/*", tagz: [prod] }
    assign: [group:sre, carol]
  - name: deploys
    assign: [human:bob]
    remind_after: 10m
`,
    );
    // A stray `]`, at its own place.
    const syntax = file("syntax.yaml", "version: 1\nrules:\n  - name: r\n    assign: [human:bob]]\n");
    // Well formed, but naming people and groups acme does not have (dave is beta's).
    const strangers = `version: 1
groups:
  oncall: [human:alice, human:dave]
rules:
  - name: r
    assign: [human:zed, group:ghosts, group:oncall]
`;
    const [bad, broken, unknown, fromStdin, noAccount, noFile, otherAccount] = await Promise.all([
      adminCli(["policy", "apply", schema, ...ACME]),
      adminCli(["policy", "apply", syntax, ...ACME, "--json"]),
      adminCli(["policy", "apply", file("strangers.yaml", strangers), ...ACME, "--json"]),
      adminCli(["policy", "apply", "-", ...ACME, "--dry-run"], strangers),
      adminCli(["policy", "apply", schema, "--json"]),
      adminCli(["policy", "apply", join(dir, "missing.yaml"), ...ACME, "--json"]),
      adminCli(["policy", "apply", file("ok.yaml", POLICY), "--account", "gamma", "--json"]),
    ]);

    // Diagnostics on stderr, one per problem, in the file's order; stdout empty.
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe("");
    expect(bad.stderr.trimEnd().split("\n")).toEqual([
      `${schema}:6:36: unknown key "tagz"`,
      `${schema}:7:25: use human:<handle> or group:<name>`,
      `${schema}:8:11: a second rule named deploys`,
      `${schema}:10:5: unknown key "remind_after"`,
      `the policy was not applied: 4 problems in ${schema}; nothing changed`,
    ]);
    expect(broken.code).toBe(1);
    expect(broken.json).toEqual({
      error: { code: "invalid_field", message: `the policy was not applied: 1 problem in ${syntax}` },
      problems: [{ line: 4, col: 24, path: [], message: expect.stringContaining('"]"') }],
    });
    // The apply's own problems (the account's people and groups), placed the same way.
    expect(unknown.code).toBe(1);
    expect(unknown.json).toEqual({
      error: { code: "invalid_field", message: expect.stringContaining("3 problems") },
      problems: [
        { line: 3, col: 25, path: ["groups", "oncall", 1], message: "human:dave is not a member of this account" },
        { line: 6, col: 14, path: ["rules", 0, "assign", 0], message: "human:zed is not a member of this account" },
        {
          line: 6,
          col: 25,
          path: ["rules", 0, "assign", 1],
          message: "group:ghosts is not a group of this account (nor one this file lists)",
        },
      ],
    });
    expect(fromStdin.code).toBe(1);
    expect(fromStdin.stderr).toContain("<stdin>:6:14: human:zed is not a member of this account\n");
    expect(noAccount.code).toBe(2);
    expect(noAccount.json).toEqual({ error: { code: "validation_error", message: "--account is required" } });
    expect(noFile.code).toBe(2);
    expect(noFile.json.error.message).toBe(`cannot read ${join(dir, "missing.yaml")}: ENOENT`);
    expect(otherAccount.code).toBe(1);
    expect(otherAccount.json).toEqual({ error: { code: "not_found", message: "account gamma not found" } });

    expect(await state()).toEqual(before);
  });
});

describe("ma2h-hub policy test", () => {
  const ask = (agentId: string, over: Record<string, unknown>) =>
    buildEnvelope("ask", agentId, 1, {}, { request: { mode: "confirm" }, ...over });

  it("shows the matching rules, the effective combination and who is excluded why — what the submit records", async () => {
    const matching = ask("deploybot/prod", { tags: ["prod"] });
    const path = file("ask.json", JSON.stringify(matching));
    const [text, json, other, restricted, notify] = await Promise.all([
      adminCli(["policy", "test", path, ...ACME]),
      adminCli(["policy", "test", path, ...ACME, "--json"]),
      // No rule matches: another agent (not even one of acme's), no prod tag.
      adminCli(["policy", "test", "-", ...ACME, "--json"], JSON.stringify(ask("lintbot", { tags: ["dev"] }))),
      // The ask's own allowed_resolvers narrow the rule's people to none.
      adminCli(
        ["policy", "test", "-", ...ACME],
        JSON.stringify(
          ask("deploybot/prod", {
            tags: ["prod"],
            request: { mode: "confirm", allowed_resolvers: ["human:olga"] },
          }),
        ),
      ),
      adminCli(
        ["policy", "test", "-", ...ACME, "--json"],
        JSON.stringify(buildEnvelope("notify", "deploybot/prod", 2)),
      ),
    ]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toBe(
      [
        "ask from deploybot/prod against the approval policy of acme, revision 1",
        "agent id from the file's agent.id; at submit the Hub takes it from the agent's key",
        "matching rules: prod-deploys",
        "email answers: no (mail links to the signed-in item page)",
        "eligible: human:alice, human:bob, human:carol",
        "excluded:",
        "  human:olga: not assigned by rule prod-deploys",
        "  human:vic: the viewer role may read but not answer; not assigned by rule prod-deploys",
        "",
      ].join("\n"),
    );
    expect(json.json).toMatchObject({
      agent: { id: "deploybot/prod", known: true },
      revision: 1,
      governed: true,
      matched: [{ name: "prod-deploys" }],
      effective: { rules: ["prod-deploys"], eligible: ["alice", "bob", "carol"], email_answers: false },
      eligible: ["human:alice", "human:bob", "human:carol"],
    });

    expect(other.json).toMatchObject({
      agent: { id: "lintbot", known: false },
      governed: true,
      matched: [],
      effective: null,
      eligible: ["human:alice", "human:bob", "human:carol", "human:olga"],
      excluded: [{ person: "human:vic", reasons: ["the viewer role may read but not answer"] }],
      note: expect.stringContaining("lintbot is not an agent of acme"),
    });
    expect(restricted.stdout).toContain(
      "nobody may answer: the Hub would refuse this submit (422 invalid_field)\neligible: nobody\n",
    );
    expect(restricted.stdout).toContain("  human:olga: not assigned by rule prod-deploys\n");
    expect(restricted.stdout).toContain("  human:alice: not in the ask's allowed_resolvers\n");
    expect(notify.json).toMatchObject({ governed: false, agent: { id: "deploybot/prod" } });

    // The live submit of the same ask records the routing the tester showed.
    const agent = requireAgent(await authenticate(new Headers({ authorization: `Bearer ${deployKey}` })));
    const { ack } = await submitMessage(agent, matching);
    const row = await db().message.findUniqueOrThrow({ where: { id: ack.id }, select: { routing: true } });
    expect(routingOf(row)).toEqual(json.json.effective);
  });
});

/**
 * `ma2h-hub group …`, `ma2h-hub agent sponsors` and `agent create --sponsor`, each command line run
 * in-process (cli/command-line.ts, the function the binary calls; test/cli-binary.test.ts has what
 * only the process shows) against a real PostgreSQL database: each command's JSON, the audit rows it
 * writes as the operator (`system:cli`), and refusals — unknown or foreign objects, bad names — that
 * change nothing. The people and one identity-provider sign-in are set up in-process.
 */
// covers: cli/group-commands.ts, cli/commands.ts, cli/command-line.ts, cli/command.ts
import { cliInProcess } from "./support/cli-in-process";
import type { CliRun } from "./support/cli-run";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "./support/test-database";
import { db } from "../lib/db";
import { createAccount } from "../lib/principals/accounts";
import { addUser } from "../lib/principals/users";
import { createAgent } from "../lib/principals/agents";
import { syncGroupsFromClaim } from "../lib/groups/claims";

useTestDatabase();

/** The admin CLI's command line, run in this process against the file's database. */
function adminCli(args: string[]): Promise<CliRun> {
  return cliInProcess(args);
}

const ok = async (...args: string[]) => {
  const r = await adminCli([...args, "--json"]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout.trim().split("\n"), r.stdout).toHaveLength(1);
  return r.json;
};
/** A refusal: non-zero exit (2 for usage), exactly `{"error":{"code","message"}}` holding `message`. */
const fails = async (code: string, message: string, ...args: string[]) => {
  const r = await adminCli([...args, "--json"]);
  expect(r.code, `${args.join(" ")}: ${r.stdout}`).toBe(code === "validation_error" ? 2 : 1);
  expect(r.json, args.join(" ")).toEqual({ error: { code, message: expect.stringContaining(message) } });
};

const ACME = ["--account", "acme"];
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
const ENTRA_GROUP_ID = "6c1f2b7e-0d4a-4b0e-9a51-3f1c2d9e8b70";
let acmeId: string;

async function auditOf(accountId: string, since: bigint) {
  const rows = await db().auditEvent.findMany({
    where: { accountId, id: { gt: since } },
    orderBy: { id: "asc" },
    select: { actor: true, event: true, detail: true },
  });
  return rows;
}
async function lastAuditId(): Promise<bigint> {
  const row = await db().auditEvent.findFirst({ orderBy: { id: "desc" }, select: { id: true } });
  return row?.id ?? 0n;
}

beforeAll(async () => {
  acmeId = (await createAccount("acme")).id;
  await createAccount("beta");
  for (const [h, role] of [
    ["alice", "owner"],
    ["bob", "member"],
    ["carol", "member"],
    ["erin", "member"],
  ] as const)
    await addUser(`${h}@acme.test`, "acme", h, role);
  await addUser("dave@beta.test", "beta", "dave", "owner");
  await createAgent("beta-bot", "beta");
});

describe("ma2h-hub group", () => {
  it("creates, fills, maps, lists, shows and empties groups; each change one audit row as system:cli", async () => {
    const since = await lastAuditId();
    const [oncall, reviewers] = await Promise.all([
      ok("group", "create", "oncall", ...ACME, "--description", "On-call rota"),
      adminCli(["group", "create", "group:reviewers", ...ACME]),
    ]);
    expect(oncall).toEqual({
      group: { name: "oncall", description: "On-call rota", created_at: ISO, members: [], claim_values: [] },
    });
    expect(reviewers.code).toBe(0);
    expect(reviewers.stdout).toBe("group reviewers created in acme\n");

    // Several people in one call, `human:<handle>` or the bare handle; the Entra-style mapping by object id.
    const [added] = await Promise.all([
      ok("group", "add", "group:oncall", "human:alice", "bob", ...ACME),
      ok("group", "map", "oncall", "oncall-team", ...ACME),
      ok("group", "map", "reviewers", ENTRA_GROUP_ID, ...ACME),
      ok("group", "add", "reviewers", "human:carol", ...ACME),
    ]);
    expect(added.group.members).toEqual(
      expect.arrayContaining([
        { person: "human:alice", source: "manual" },
        { person: "human:bob", source: "manual" },
      ]),
    );
    // erin signs in with the mapped claim value: a member from the identity provider.
    const erin = await db().membership.findFirstOrThrow({ where: { accountId: acmeId, handle: "erin" } });
    expect(await syncGroupsFromClaim(erin.userId, ["oncall-team"])).toHaveLength(1);

    const [list, shown, text] = await Promise.all([
      ok("group", "list", ...ACME),
      ok("group", "show", "group:reviewers", ...ACME),
      adminCli(["group", "show", "oncall", ...ACME]),
    ]);
    const oncallNow = {
      name: "oncall",
      description: "On-call rota",
      created_at: ISO,
      members: [
        { person: "human:alice", source: "manual" },
        { person: "human:bob", source: "manual" },
        { person: "human:erin", source: "idp" },
      ],
      claim_values: ["oncall-team"],
    };
    const reviewersNow = {
      name: "reviewers",
      description: null,
      created_at: ISO,
      members: [{ person: "human:carol", source: "manual" }],
      claim_values: [ENTRA_GROUP_ID],
    };
    expect(list).toEqual({ groups: [oncallNow, reviewersNow] });
    expect(shown).toEqual({ group: reviewersNow });
    expect(text.stdout).toBe(
      'group:oncall — On-call rota\n  members: human:alice, human:bob, human:erin (identity provider)\n  mapped from: "oncall-team"\n',
    );

    // Removal takes a hand-added and an identity-provider member alike; unmapping leaves the members.
    const [removed, unmapped] = await Promise.all([
      ok("group", "remove", "oncall", "human:bob", "human:erin", ...ACME),
      ok("group", "unmap", "reviewers", ENTRA_GROUP_ID, ...ACME),
    ]);
    expect(removed.group.members).toEqual([{ person: "human:alice", source: "manual" }]);
    expect(unmapped).toEqual({ group: { ...reviewersNow, claim_values: [] } });

    const audit = await auditOf(acmeId, since);
    const byCli = audit.filter((r) => r.actor === "system:cli");
    expect(audit.filter((r) => r.actor !== "system:cli")).toEqual([
      {
        actor: "system:idp-groups",
        event: "group.member_added",
        detail: { group: "oncall", handle: "erin", source: "idp" },
      },
    ]);
    const changes = [
      ...["oncall", "reviewers"].map((group) => ({
        event: "group.created",
        detail: { group, group_id: expect.stringMatching(/^grp_/) },
      })),
      ...["alice", "bob"].map((handle) => ({
        event: "group.member_added",
        detail: { group: "oncall", handle, source: "manual" },
      })),
      { event: "group.member_added", detail: { group: "reviewers", handle: "carol", source: "manual" } },
      { event: "group.mapping_added", detail: { group: "oncall", claim_value: "oncall-team" } },
      { event: "group.mapping_added", detail: { group: "reviewers", claim_value: ENTRA_GROUP_ID } },
      ...["bob", "erin"].map((handle) => ({
        event: "group.member_removed",
        detail: { group: "oncall", handle, source: "manual" },
      })),
      { event: "group.mapping_removed", detail: { group: "reviewers", claim_value: ENTRA_GROUP_ID } },
    ];
    // Exactly these, in whatever order the concurrent commands committed.
    expect(byCli).toHaveLength(changes.length);
    expect(byCli.map(({ event, detail }) => ({ event, detail }))).toEqual(expect.arrayContaining(changes));
  });
});

describe("ma2h-hub agent sponsors", () => {
  const BOT = "deploybot/dev-team";

  it("agent create --sponsor names people and groups; sponsors lists, adds, removes and sets them, audited", async () => {
    const since = await lastAuditId();
    const created = await ok(
      "agent",
      "create",
      BOT,
      ...ACME,
      "--sponsor",
      "group:oncall",
      "--sponsor",
      "human:alice",
      "--sponsor",
      "human:alice",
    );
    expect(created).toEqual({
      agent: { id: BOT, sponsors: ["human:alice", "group:oncall"] },
      key: { id: expect.stringMatching(/^key_/) },
      api_key: expect.stringMatching(/^ma2h_key_/),
    });

    // No change flag: the list, without `changed`.
    const [listed, text] = await Promise.all([
      ok("agent", "sponsors", BOT, ...ACME),
      adminCli(["agent", "sponsors", BOT, ...ACME]),
    ]);
    expect(listed).toEqual({ agent: { id: BOT, account: "acme", sponsors: ["human:alice", "group:oncall"] } });
    expect(text.stdout).toBe(`${BOT} (acme) is sponsored by human:alice, group:oncall\n`);
    expect(
      await ok(
        "agent",
        "sponsors",
        BOT,
        ...ACME,
        "--add",
        "human:bob",
        "--add",
        "group:reviewers",
        "--remove",
        "human:alice",
      ),
    ).toEqual({
      agent: { id: BOT, account: "acme", sponsors: ["human:bob", "group:oncall", "group:reviewers"], changed: true },
    });
    expect(await ok("agent", "sponsors", BOT, ...ACME, "--set", "group:oncall, human:carol")).toEqual({
      agent: { id: BOT, account: "acme", sponsors: ["human:carol", "group:oncall"], changed: true },
    });
    expect((await ok("agent", "sponsors", BOT, ...ACME, "--set", "human:carol,group:oncall")).agent).toEqual({
      id: BOT,
      account: "acme",
      sponsors: ["human:carol", "group:oncall"],
      changed: false,
    });

    // Deleting a sponsoring group ends its sponsorships, each audited.
    expect(await ok("group", "delete", "group:oncall", ...ACME)).toEqual({ group: { name: "oncall", deleted: true } });
    expect((await ok("agent", "sponsors", BOT, ...ACME, "--set", "")).agent).toEqual({
      id: BOT,
      account: "acme",
      sponsors: [],
      changed: true,
    });

    const audit = await auditOf(acmeId, since);
    expect(audit.every((r) => r.actor === "system:cli")).toBe(true);
    const agentRowId = (await db().agent.findFirstOrThrow({ where: { accountId: acmeId, agentId: BOT } })).id;
    const row = (detail: object) => ({ agent_row_id: agentRowId, agent_id: BOT, ...detail });
    expect(audit.map(({ event, detail }) => ({ event, detail }))).toEqual([
      { event: "agent.created", detail: row({ key_id: created.key.id, sponsors: [] }) },
      {
        event: "agent.sponsors_changed",
        // `added` in the order given, `sponsors` people first.
        detail: row({ added: ["group:oncall", "human:alice"], removed: [], sponsors: ["human:alice", "group:oncall"] }),
      },
      {
        event: "agent.sponsors_changed",
        detail: row({
          added: ["human:bob", "group:reviewers"],
          removed: ["human:alice"],
          sponsors: ["human:bob", "group:oncall", "group:reviewers"],
        }),
      },
      {
        event: "agent.sponsors_changed",
        detail: row({
          added: ["human:carol"],
          removed: ["human:bob", "group:reviewers"],
          sponsors: ["human:carol", "group:oncall"],
        }),
      },
      // The unchanged --set wrote nothing.
      { event: "group.deleted", detail: { group: "oncall", group_id: expect.stringMatching(/^grp_/) } },
      {
        event: "agent.sponsors_changed",
        detail: row({ removed: ["group:oncall"], why: "group deleted" }),
      },
      { event: "agent.sponsors_changed", detail: row({ added: [], removed: ["human:carol"], sponsors: [] }) },
    ]);
  });
});

describe("refusals", () => {
  /** Everything a refused command could have touched. */
  async function state() {
    const q = db();
    return {
      audit: await lastAuditId(),
      agents: await q.agent.count(),
      groups: await q.accountGroup.findMany({ orderBy: { id: "asc" } }),
      members: await q.groupMember.findMany({ orderBy: [{ groupId: "asc" }, { membershipId: "asc" }] }),
      mappings: await q.groupClaimMapping.findMany({ orderBy: { id: "asc" } }),
      sponsors: await q.agentSponsor.findMany({ orderBy: { id: "asc" } }),
    };
  }

  it("unknown and other accounts' groups, people and agents are not found, bad names invalid; nothing changes", async () => {
    const before = await state();
    const BOT = "deploybot/dev-team";
    const sponsors = ["agent", "sponsors", BOT, ...ACME];
    // [code, part of the message, ...arguments]; each batch runs at once.
    const batches: Array<Array<[string, string, ...string[]]>> = [
      [
        ["not_found", "group ghost not found", "group", "show", "ghost", ...ACME],
        ["not_found", "group reviewers not found", "group", "show", "reviewers", "--account", "beta"],
        // One unknown person refuses the whole call: bob is not added either.
        [
          "not_found",
          "human:zed is not a member of account acme",
          "group",
          "add",
          "reviewers",
          "bob",
          "human:zed",
          ...ACME,
        ],
        [
          "not_found",
          "human:bob is not in group reviewers",
          "group",
          "remove",
          "reviewers",
          "carol",
          "human:bob",
          ...ACME,
        ],
        ["invalid_field", 'group name "Bad Name" is invalid', "group", "create", "Bad Name", ...ACME],
      ],
      [
        ["invalid_field", '"agent:x" is not a person', "group", "add", "reviewers", "human:carol", "agent:x", ...ACME],
        [
          "not_found",
          "agent beta-bot not found in account acme",
          "agent",
          "sponsors",
          "beta-bot",
          ...ACME,
          "--add",
          "human:bob",
        ],
        // dave has a seat in beta only.
        ["not_found", "human:dave is not a member", ...sponsors, "--add", "human:dave"],
        // The agent is not made when a sponsor is refused: its key would never have been shown.
        [
          "not_found",
          "group ghost not found",
          "agent",
          "create",
          "new",
          ...ACME,
          "--sponsor",
          "human:bob",
          "--sponsor",
          "group:ghost",
        ],
        [
          "invalid_field",
          "names neither a person nor a group",
          "agent",
          "create",
          "new",
          ...ACME,
          "--sponsor",
          "agent:x",
        ],
      ],
      [
        [
          "validation_error",
          "either the whole list or additions",
          ...sponsors,
          "--set",
          "human:bob",
          "--add",
          "human:carol",
        ],
        ["validation_error", "--set: an empty sponsor", ...sponsors, "--set", "human:bob,,human:carol"],
        ["validation_error", "--account is required", "group", "list"],
        ["validation_error", "usage: ma2h-hub group add", "group", "add", "reviewers", ...ACME],
      ],
    ];
    for (const batch of batches)
      await Promise.all(batch.map(([code, message, ...args]) => fails(code, message, ...args)));
    expect(await state()).toEqual(before);
  });
});

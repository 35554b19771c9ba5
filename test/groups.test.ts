/**
 * Account groups and agent sponsors (docs/groups.md), on real PostgreSQL: owners and the operator
 * change them, admins may not; every change is one audited transaction; another account's people,
 * groups and agents are unknown; the identity provider's groups claim moves only the rows it made;
 * a group's deletion takes its sponsorships with it, audited; the browser creator of an agent is its
 * first sponsor, and the migration gave the agents created before it theirs.
 */
// covers: lib/groups/groups.ts, lib/groups/claims.ts, lib/principals/names.ts, lib/principals/sponsors.ts
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { syncGroupsFromClaim, addGroupMapping, removeGroupMapping, IDP_SYNC_ACTOR } from "../lib/groups/claims";
import {
  addGroupMember,
  addGroupMembers,
  removeGroupMembers,
  createGroup,
  deleteGroup,
  groupMemberHandles,
  groupsOfHandle,
  listGroups,
  readGroup,
  removeGroupMember,
} from "../lib/groups/groups";
import { parsePersonOrGroup } from "../lib/principals/names";
import { createAgent } from "../lib/principals/agents";
import { removeMember } from "../lib/principals/members";
import { changeSponsors, listSponsors, MAX_SPONSORS, sponsorHandles } from "../lib/principals/sponsors";
import { addUser } from "../lib/principals/users";
import { useHubFixture } from "./support/hub-fixture";

useHubFixture({
  server: "none",
  accounts: {
    acme: {
      agents: ["deploybot"],
      humans: [
        { handle: "olga", role: "owner" },
        { handle: "adam", role: "admin" },
        { handle: "mia", role: "member" },
        { handle: "sam", role: "member" },
      ],
    },
    other: { agents: ["deploybot"], humans: [{ handle: "otto", role: "owner" }] },
  },
});

const OWNER = { actor: "human:olga", role: "owner" } as const;
const ADMIN = { actor: "human:adam", role: "admin" } as const;

async function accountId(slug: string): Promise<string> {
  return (await db().account.findUniqueOrThrow({ where: { slug }, select: { id: true } })).id;
}

async function agentRowId(slug: string, agentId: string): Promise<string> {
  const row = await db().agent.findFirstOrThrow({ where: { agentId, account: { slug } }, select: { id: true } });
  return row.id;
}

async function auditOf(slug: string, event: string) {
  return db().auditEvent.findMany({
    where: { account: { slug }, event },
    select: { actor: true, detail: true },
    orderBy: { id: "asc" },
  });
}

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return `${(err as { code?: string }).code}: ${(err as Error).message}`;
  }
  throw new Error("expected a refusal");
}

async function userIdOf(email: string): Promise<string> {
  return (await db().user.findUniqueOrThrow({ where: { email }, select: { id: true } })).id;
}

describe("names", () => {
  it("takes human:<handle> and group:<name> and nothing else", () => {
    expect(parsePersonOrGroup("human:olga")).toEqual({ kind: "human", handle: "olga" });
    expect(parsePersonOrGroup("group:sre")).toEqual({ kind: "group", name: "sre" });
    for (const bad of ["agent:deploybot", "system:cli", "olga", "group:SRE", "group:", "human:", "human:a b"])
      expect(() => parsePersonOrGroup(bad), bad).toThrow();
  });
});

describe("groups", () => {
  it("an owner creates a group, once, audited; an admin, a bad name or a long description change nothing", async () => {
    const acme = await accountId("acme");
    expect(await refusal(createGroup(acme, "sre", undefined, ADMIN))).toMatch(/^not_authorized: only an owner/);
    expect(await refusal(createGroup(acme, "Bad Name", undefined, OWNER))).toMatch(/^invalid_field:/);
    expect(await refusal(createGroup(acme, "x", "d".repeat(201), OWNER))).toMatch(/^invalid_field:/);
    const sre = await createGroup(acme, "sre", "  Site reliability  ", OWNER);
    expect(sre).toMatchObject({ name: "sre", description: "Site reliability", members: [], claimValues: [] });
    expect(sre.id).toMatch(/^grp_[0-9a-z]{26}$/);
    expect(await refusal(createGroup(acme, "sre", undefined, OWNER))).toMatch(/already exists/);
    expect((await listGroups(acme)).map((g) => g.name)).toEqual(["sre"]);
    expect(await auditOf("acme", "group.created")).toEqual([
      { actor: "human:olga", detail: { group: "sre", group_id: sre.id } },
    ]);
  });

  it("two concurrent creations of one name: one group, one refusal", async () => {
    const acme = await accountId("acme");
    const results = await Promise.allSettled([
      createGroup(acme, "race", undefined, OWNER),
      createGroup(acme, "race", undefined, OWNER),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(String((results.find((r) => r.status === "rejected") as PromiseRejectedResult).reason)).toMatch(
      /already exists/,
    );
    expect(await db().accountGroup.count({ where: { name: "race" } })).toBe(1);
    await deleteGroup(acme, "race", OWNER);
  });

  it("members are the account's people, added and removed by owners (the CLI too), idempotently", async () => {
    const acme = await accountId("acme");
    await addGroupMember(acme, "group:sre", "human:mia", OWNER);
    await addGroupMember(acme, "sre", "mia", OWNER); // again: no second row, no second audit row
    await addGroupMember(acme, "sre", "human:sam"); // the operator (system:cli)
    expect(await groupMemberHandles(acme, "sre")).toEqual(["mia", "sam"]);
    expect(await groupsOfHandle(acme, "mia")).toEqual(["sre"]);
    // Another account's person, an unknown one, an unknown group, an admin: refused, nothing changes.
    expect(await refusal(addGroupMember(acme, "sre", "human:otto", OWNER))).toMatch(
      /^not_found: human:otto is not a member/,
    );
    expect(await refusal(addGroupMember(acme, "sre", "human:nobody", OWNER))).toMatch(/^not_found:/);
    expect(await refusal(addGroupMember(acme, "ops", "human:mia", OWNER))).toMatch(/^not_found: group ops/);
    expect(await refusal(addGroupMember(acme, "sre", "human:olga", ADMIN))).toMatch(/^not_authorized:/);
    expect(await refusal(removeGroupMember(acme, "sre", "human:olga", OWNER))).toMatch(
      /^not_found: human:olga is not in group sre/,
    );
    // Another account does not see acme's group at all.
    expect(await refusal(addGroupMember(await accountId("other"), "sre", "human:otto"))).toMatch(
      /^not_found: group sre/,
    );
    expect(await refusal(readGroup(await accountId("other"), "sre"))).toMatch(/^not_found/);
    // Several at once are all or none.
    expect(await refusal(addGroupMembers(acme, "sre", ["human:olga", "human:nobody"], OWNER))).toMatch(/^not_found/);
    expect(await refusal(removeGroupMembers(acme, "sre", ["human:sam", "human:olga"], OWNER))).toMatch(/not in group/);
    expect(await groupMemberHandles(acme, "sre")).toEqual(["mia", "sam"]);
    await removeGroupMember(acme, "sre", "human:sam", OWNER);
    expect((await readGroup(acme, "sre")).members).toEqual([{ handle: "mia", source: "manual" }]);
    expect((await auditOf("acme", "group.member_added")).map((r) => r.actor)).toEqual(["human:olga", "system:cli"]);
    expect(await auditOf("acme", "group.member_removed")).toEqual([
      { actor: "human:olga", detail: { group: "sre", handle: "sam", source: "manual" } },
    ]);
  });

  it("a person removed from the account leaves its groups", async () => {
    const acme = await accountId("acme");
    await addUser("tmp@acme.test", "acme", "tmp", "member");
    await addGroupMember(acme, "sre", "human:tmp", OWNER);
    const seat = await db().membership.findFirstOrThrow({ where: { accountId: acme, handle: "tmp" } });
    await removeMember(acme, seat.id, OWNER);
    expect(await groupMemberHandles(acme, "sre")).toEqual(["mia"]);
  });
});

describe("groups from the identity provider's claim", () => {
  it("mapped values put the person in, unmapped ones do nothing, and a later sign-in without them takes out only the rows the claim made", async () => {
    const acme = await accountId("acme");
    await createGroup(acme, "oncall", undefined, OWNER);
    await addGroupMapping(acme, "oncall", "9f1c2b7e-0000-4000-8000-000000000001", OWNER); // an Entra object id
    await addGroupMapping(acme, "sre", "sre-team", OWNER); // a Keycloak/Okta name
    expect(await refusal(addGroupMapping(acme, "sre", "sre-team", OWNER))).toMatch(/already mapped/);
    expect(await refusal(addGroupMapping(acme, "sre", "x", ADMIN))).toMatch(/^not_authorized/);
    expect(await refusal(addGroupMapping(acme, "sre", "  ", OWNER))).toMatch(/^invalid_field/);
    expect(await refusal(addGroupMapping(acme, "nope", "x", OWNER))).toMatch(/^not_found/);
    expect((await readGroup(acme, "sre")).claimValues).toEqual(["sre-team"]);

    const sam = await userIdOf("sam@acme.test");
    const mia = await userIdOf("mia@acme.test");
    // sam: both mapped values plus noise; mia (a manual member of sre) carries sre-team too.
    const first = await syncGroupsFromClaim(sam, [
      "sre-team",
      "9f1c2b7e-0000-4000-8000-000000000001",
      "admins",
      "other",
    ]);
    expect(first.map((c) => `${c.change} ${c.handle} ${c.group}`).sort()).toEqual([
      "added sam oncall",
      "added sam sre",
    ]);
    expect(await syncGroupsFromClaim(mia, ["sre-team"])).toEqual([]); // already in it by hand
    expect((await readGroup(acme, "sre")).members).toEqual([
      { handle: "mia", source: "manual" },
      { handle: "sam", source: "idp" },
    ]);
    // The same claim again changes nothing.
    expect(await syncGroupsFromClaim(sam, ["sre-team", "9f1c2b7e-0000-4000-8000-000000000001"])).toEqual([]);
    // A later sign-in without sre-team: sam leaves sre (his row came from the claim); mia, put there
    // by hand, stays though her claim lost it too.
    expect((await syncGroupsFromClaim(sam, ["9f1c2b7e-0000-4000-8000-000000000001"])).map((c) => c.change)).toEqual([
      "removed",
    ]);
    expect(await syncGroupsFromClaim(mia, [])).toEqual([]);
    expect(await groupMemberHandles(acme, "sre")).toEqual(["mia"]);
    expect(await groupMemberHandles(acme, "oncall")).toEqual(["sam"]);
    const rows = [...(await auditOf("acme", "group.member_added")), ...(await auditOf("acme", "group.member_removed"))];
    expect(rows.filter((r) => r.actor === IDP_SYNC_ACTOR).map((r) => r.detail)).toEqual([
      { group: "oncall", handle: "sam", source: "idp" },
      { group: "sre", handle: "sam", source: "idp" },
      { group: "sre", handle: "sam", source: "idp" },
    ]);
    // An owner putting an idp member in by hand makes the row manual: sign-ins keep it from then on.
    await addGroupMember(acme, "oncall", "human:sam", OWNER);
    expect(await syncGroupsFromClaim(sam, [])).toEqual([]);
    expect((await readGroup(acme, "oncall")).members).toEqual([{ handle: "sam", source: "manual" }]);
    // A removed mapping: the members it brought leave at their next sign-in.
    await syncGroupsFromClaim(sam, ["sre-team"]);
    await removeGroupMapping(acme, "sre", "sre-team", OWNER);
    expect(await refusal(removeGroupMapping(acme, "sre", "sre-team", OWNER))).toMatch(/^not_found/);
    await syncGroupsFromClaim(sam, ["sre-team"]);
    expect(await groupMemberHandles(acme, "sre")).toEqual(["mia"]);
    await addGroupMapping(acme, "sre", "sre-team", OWNER);
  });

  it("a claim reaches only the accounts the person sits in, each through its own mappings", async () => {
    const other = await accountId("other");
    await createGroup(other, "sre", undefined);
    await addGroupMapping(other, "sre", "sre-team");
    const sam = await userIdOf("sam@acme.test");
    await syncGroupsFromClaim(sam, ["sre-team"]);
    expect(await groupMemberHandles(other, "sre")).toEqual([]); // sam has no seat in `other`
    expect(await groupMemberHandles(await accountId("acme"), "sre")).toEqual(["mia", "sam"]);
  });

  it("concurrent sign-ins of one person leave one row", async () => {
    const sam = await userIdOf("sam@acme.test");
    await syncGroupsFromClaim(sam, []);
    await Promise.all([syncGroupsFromClaim(sam, ["sre-team"]), syncGroupsFromClaim(sam, ["sre-team"])]);
    expect(await groupMemberHandles(await accountId("acme"), "sre")).toEqual(["mia", "sam"]);
  });
});

describe("agent sponsors", () => {
  it("the person who creates an agent in the browser is its first sponsor; the CLI names sponsors explicitly", async () => {
    const byOlga = await createAgent("buildbot", "acme", {
      actor: "human:olga",
      accountId: await accountId("acme"),
      role: "owner",
    });
    expect(byOlga.sponsors).toEqual(["human:olga"]);
    expect(await listSponsors(byOlga.agent.id)).toEqual(["human:olga"]);
    const created = await auditOf("acme", "agent.created");
    expect(created.at(-1)?.detail).toMatchObject({ agent_id: "buildbot", sponsors: ["human:olga"] });
    const byCli = await createAgent("nightly", "acme", undefined, ["group:sre", "human:mia"]);
    expect(byCli.sponsors).toEqual(["human:mia", "group:sre"]);
    expect(await listSponsors(await agentRowId("acme", "deploybot"))).toEqual([]); // provisioned by the CLI
    // A refused sponsor refuses the creation: no agent is left whose one-time key was never shown.
    expect(await refusal(createAgent("ghost", "acme", undefined, ["human:otto"]))).toMatch(/^not_found/);
    expect(await db().agent.count({ where: { agentId: "ghost" } })).toBe(0);
  });

  it("owners and the operator change sponsors, audited once per change; admins, strangers and bad refs change nothing", async () => {
    const acme = await accountId("acme");
    const bot = await agentRowId("acme", "deploybot");
    expect(await changeSponsors(acme, bot, { add: ["human:sam", "group:sre"] }, OWNER)).toEqual([
      "human:sam",
      "group:sre",
    ]);
    expect(await changeSponsors(acme, bot, { add: ["human:sam"] }, OWNER)).toEqual(["human:sam", "group:sre"]); // no-op
    expect(await changeSponsors(acme, bot, { remove: ["human:sam"], add: ["human:mia"] })).toEqual([
      "human:mia",
      "group:sre",
    ]);
    expect(await changeSponsors(acme, bot, { set: ["group:oncall"] }, OWNER)).toEqual(["group:oncall"]);
    for (const [change, opts, want] of [
      [{ add: ["human:olga"] }, ADMIN, /^not_authorized/],
      [{ add: ["human:otto"] }, OWNER, /^not_found: human:otto/],
      [{ add: ["group:ghosts"] }, OWNER, /^not_found: group ghosts/],
      [{ add: ["agent:deploybot"] }, OWNER, /^invalid_field/],
      [{ remove: ["human:olga"] }, OWNER, /^not_found: human:olga is not a sponsor/],
      [{ set: ["human:olga"], add: ["human:mia"] }, OWNER, /^validation_error/],
    ] as const)
      expect(await refusal(changeSponsors(acme, bot, change, opts))).toMatch(want);
    // Another account's agent is unknown, even to the operator acting for that account.
    expect(await refusal(changeSponsors(await accountId("other"), bot, { add: ["human:otto"] }))).toMatch(
      /^not_found: agent/,
    );
    expect(await listSponsors(bot)).toEqual(["group:oncall"]);
    const rows = (await auditOf("acme", "agent.sponsors_changed")).filter(
      (r) => (r.detail as { agent_id: string }).agent_id === "deploybot",
    );
    expect(rows.map((r) => [r.actor, r.detail])).toEqual([
      [
        "human:olga",
        {
          agent_row_id: bot,
          agent_id: "deploybot",
          added: ["human:sam", "group:sre"],
          removed: [],
          sponsors: ["human:sam", "group:sre"],
        },
      ],
      [
        "system:cli",
        {
          agent_row_id: bot,
          agent_id: "deploybot",
          added: ["human:mia"],
          removed: ["human:sam"],
          sponsors: ["human:mia", "group:sre"],
        },
      ],
      [
        "human:olga",
        {
          agent_row_id: bot,
          agent_id: "deploybot",
          added: ["group:oncall"],
          removed: ["human:mia", "group:sre"],
          sponsors: ["group:oncall"],
        },
      ],
    ]);
  });

  it("a sponsoring group stands for its members; deleting the group ends the sponsorship, audited", async () => {
    const acme = await accountId("acme");
    const bot = await agentRowId("acme", "deploybot");
    await changeSponsors(acme, bot, { add: ["human:olga"] }, OWNER);
    expect(await sponsorHandles(bot)).toEqual(["olga", "sam"]); // olga + oncall's sam
    const tooMany = Array.from({ length: MAX_SPONSORS }, (_, i) => `group:g${i}`);
    expect(await refusal(changeSponsors(acme, bot, { add: tooMany }, OWNER))).toMatch(/at most 20 sponsors/);
    await deleteGroup(acme, "oncall", OWNER);
    expect(await listSponsors(bot)).toEqual(["human:olga"]);
    expect((await auditOf("acme", "agent.sponsors_changed")).at(-1)?.detail).toEqual({
      agent_row_id: bot,
      agent_id: "deploybot",
      removed: ["group:oncall"],
      why: "group deleted",
    });
    expect(await auditOf("acme", "group.deleted")).toContainEqual({
      actor: "human:olga",
      detail: { group: "oncall", group_id: expect.stringMatching(/^grp_/) },
    });
    expect(await db().groupClaimMapping.count({ where: { claimValue: "9f1c2b7e-0000-4000-8000-000000000001" } })).toBe(
      0,
    );
  });

  it("the migration gave each agent created in the browser before it its creator as sponsor", async () => {
    const acme = await accountId("acme");
    const buildbot = await agentRowId("acme", "buildbot");
    const nightly = await agentRowId("acme", "nightly");
    await db().agentSponsor.deleteMany({ where: { agentRowId: { in: [buildbot, nightly] } } });
    const sql = readFileSync(
      new URL("../prisma/migrations/20261207021436_groups_and_sponsors/migration.sql", import.meta.url),
      "utf8",
    );
    const backfill = sql.slice(sql.indexOf('INSERT INTO "agent_sponsors"'));
    await db().$executeRawUnsafe(backfill.trim().replace(/;$/, ""));
    expect(await listSponsors(buildbot)).toEqual(["human:olga"]); // created by olga in the browser
    expect(await listSponsors(nightly)).toEqual([]); // created by the CLI: no person to name
    expect(await db().agentSponsor.count({ where: { agent: { accountId: acme } } })).toBeGreaterThan(0);
  });
});

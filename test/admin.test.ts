/**
 * The admin verbs behind the web admin against real PostgreSQL: who administers an
 * account, the last-owner rule (also under concurrency), role changes, removal ending sessions,
 * account scoping of every verb that takes a bare id, self-service tokens, the append-only audit
 * trigger, and the audit reader and its JSON Lines export; the account's agent-session visibility
 * setting (§16.4), its inter-agent opt-in (§8.0), who may message an agent (§13.5) and what an agent's page shows of its sessions and the operator's hard stop
 * (§16.4.1).
 */
// covers: lib/principals/members.ts, lib/principals/seats.ts, lib/principals/accounts.ts, lib/principals/tokens.ts, lib/audit/log.ts, lib/inbox/agent-sessions.ts
import { beforeAll, describe, expect, it } from "vitest";
import { auditJsonLines, listAudit, parseAuditFilters } from "../lib/audit/log";
import { clock } from "../lib/clock";
import { db } from "../lib/db";
import { redriveDelivery } from "../lib/delivery/admin";
import { agentInAccount, createAgent, listAgents } from "../lib/principals/agents";
import { listKeys, revokeKey, rotateKey } from "../lib/principals/api-keys";
import { addBinding, listAccountBindings, revokeBinding } from "../lib/principals/bindings";
import { changeRole, listMembers, removeMember } from "../lib/principals/members";
import { agentSendersView } from "../lib/inbox/agent-senders";
import { agentSessionsView, submittingSession } from "../lib/inbox/agent-sessions";
import { agentForStop } from "../lib/sessions/access";
import {
  agentSessionVisibilityOf,
  interAgentEnabledOf,
  interAgentStateOf,
  setAgentSessionVisibility,
  setInterAgentEnabled,
} from "../lib/principals/accounts";
import { readSenderAllowlist, senderAllowed, setSenderAllowlist } from "../lib/principals/sender-allowlist";
import { resetEnvCache } from "../lib/env";
import { adminAccountsOf, adminSeat, hasAnySeat, seatBySlug } from "../lib/principals/seats";
import { registerSession } from "../lib/sessions/register";
import { resumeAgent, stopAgent } from "../lib/sessions/stop";
import { createTokenForUser, listTokens, revokeToken } from "../lib/principals/tokens";
import { addUser } from "../lib/principals/users";
import { createWebSession, humanForSessionToken } from "../lib/principals/web-sessions";
import { useHubFixture } from "./support/hub-fixture";
import { provisionAccount } from "./support/provision";

const hub = useHubFixture({
  accounts: {
    acme: {
      agents: ["deploybot/dev-team"],
      humans: [
        { handle: "alice", role: "owner" },
        { handle: "adam", role: "admin" },
        { handle: "bob", role: "member" },
        { handle: "vic", role: "viewer" },
      ],
    },
    globex: { agents: ["globex-bot"], humans: [{ handle: "gina", role: "owner" }] },
  },
  server: "none",
});
let acmeId: string;
let globexId: string;

const userOf = async (email: string) => (await db().user.findUniqueOrThrow({ where: { email } })).id;
const seatOf = async (accountId: string, handle: string) =>
  (await db().membership.findUniqueOrThrow({ where: { accountId_handle: { accountId, handle } } })).id;
const codeOf = async (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e: { code?: string }) => e.code ?? String(e),
  );

beforeAll(async () => {
  acmeId = (await db().account.findUniqueOrThrow({ where: { slug: "acme" } })).id;
  globexId = (await db().account.findUniqueOrThrow({ where: { slug: "globex" } })).id;
});

describe("who administers", () => {
  it("owner and admin get a seat with their attested actor; member, viewer and outsiders get null", async () => {
    expect(await adminSeat(await userOf("alice@acme.test"), "acme")).toMatchObject({
      role: "owner",
      actor: "human:alice",
      accountId: acmeId,
    });
    expect(await adminSeat(await userOf("adam@acme.test"), "acme")).toMatchObject({
      role: "admin",
      actor: "human:adam",
    });
    expect(await adminSeat(await userOf("bob@acme.test"), "acme")).toBeNull();
    expect(await adminSeat(await userOf("vic@acme.test"), "acme")).toBeNull();
    // Another account's owner sees nothing of acme.
    expect(await adminSeat(await userOf("gina@globex.test"), "acme")).toBeNull();
    expect(await adminSeat(await userOf("alice@acme.test"), "no-such-account")).toBeNull();
    expect(await adminAccountsOf(await userOf("gina@globex.test"))).toEqual(["globex"]);
    expect(await adminAccountsOf(await userOf("bob@acme.test"))).toEqual([]);
  });
});

describe("members", () => {
  it("changes a role with an audit row naming both roles; the same role again is a no-op", async () => {
    await addUser("carol@acme.test", "acme", "carol", "member");
    const carol = await seatOf(acmeId, "carol");
    const r = await changeRole(acmeId, carol, "admin", { actor: "human:alice", accountId: acmeId });
    expect(r).toMatchObject({ role: "admin", changed: true });
    expect(await adminSeat(await userOf("carol@acme.test"), "acme")).toMatchObject({ role: "admin" });
    const again = await changeRole(acmeId, carol, "admin", { actor: "human:alice" });
    expect(again.changed).toBe(false);
    const rows = await db().auditEvent.findMany({ where: { accountId: acmeId, event: "member.role_changed" } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ actor: "human:alice", detail: { handle: "carol", from: "member", to: "admin" } });
    expect(await codeOf(changeRole(acmeId, carol, "emperor"))).toBe("invalid_field");
  });

  it("never leaves an account without an owner: demoting or removing the last owner is refused", async () => {
    const gina = await seatOf(globexId, "gina");
    expect(await codeOf(changeRole(globexId, gina, "admin", { actor: "human:gina" }))).toBe("invalid_field");
    expect(await codeOf(removeMember(globexId, gina, { actor: "human:gina" }))).toBe("invalid_field");
    expect((await listMembers(globexId)).map((m) => [m.handle, m.role])).toEqual([["gina", "owner"]]);
    // With a second owner, one of them may go.
    await addUser("gus@globex.test", "globex", "gus", "owner");
    await changeRole(globexId, gina, "member", { actor: "human:gus" });
    expect(await codeOf(changeRole(globexId, await seatOf(globexId, "gus"), "viewer"))).toBe("invalid_field");
    await changeRole(globexId, gina, "owner", { actor: "human:gus" });
  });

  it("owners are made by owners: an admin cannot grant, change or remove the owner role", async () => {
    const asAdam = { actor: "human:adam", accountId: acmeId, role: "admin" };
    const [alice, bob] = [await seatOf(acmeId, "alice"), await seatOf(acmeId, "bob")];
    expect(await codeOf(changeRole(acmeId, bob, "owner", asAdam))).toBe("not_authorized");
    expect(await codeOf(changeRole(acmeId, await seatOf(acmeId, "adam"), "owner", asAdam))).toBe("not_authorized");
    expect(await codeOf(changeRole(acmeId, alice, "member", asAdam))).toBe("not_authorized");
    expect(await codeOf(removeMember(acmeId, alice, asAdam))).toBe("not_authorized");
    expect(await codeOf(addUser("olga@acme.test", "acme", "olga", "owner", asAdam))).toBe("not_authorized");
    expect((await listMembers(acmeId)).filter((m) => m.role === "owner").map((m) => m.handle)).toEqual(["alice"]);
    // Everything below owner is theirs to manage.
    expect((await changeRole(acmeId, bob, "viewer", asAdam)).changed).toBe(true);
    expect((await changeRole(acmeId, bob, "member", asAdam)).changed).toBe(true);
    // An owner may grant it.
    expect(
      await codeOf(changeRole(acmeId, bob, "owner", { actor: "human:alice", accountId: acmeId, role: "owner" })),
    ).toBe("ok");
    await changeRole(acmeId, bob, "member", { actor: "human:alice", accountId: acmeId, role: "owner" });
  });

  it("two owners removing each other at once: exactly one removal wins", async () => {
    await provisionAccount(
      "duo",
      [],
      [
        { handle: "o1", role: "owner" },
        { handle: "o2", role: "owner" },
      ],
    );
    const duo = (await db().account.findUniqueOrThrow({ where: { slug: "duo" } })).id;
    const [a, b] = [await seatOf(duo, "o1"), await seatOf(duo, "o2")];
    const outcomes = await Promise.all([
      codeOf(removeMember(duo, a, { actor: "human:o2" })),
      codeOf(removeMember(duo, b, { actor: "human:o1" })),
    ]);
    expect(outcomes.sort()).toEqual(["invalid_field", "ok"]);
    const left = await listMembers(duo);
    expect(left).toHaveLength(1);
    expect(left[0]!.role).toBe("owner");
  });

  it("removal of the last seat ends the person's sessions in the same transaction and is audited", async () => {
    await addUser("dave@acme.test", "acme", "dave", "member");
    const daveUser = await userOf("dave@acme.test");
    await createWebSession(daveUser, "dave-session-token", new Date(clock.now().getTime() + 3600_000));
    expect(await humanForSessionToken("dave-session-token")).not.toBeNull();
    const r = await removeMember(acmeId, await seatOf(acmeId, "dave"), { actor: "human:alice", accountId: acmeId });
    expect(r.sessionsEnded).toBe(1);
    expect(await humanForSessionToken("dave-session-token")).toBeNull();
    // With no seat left, a sign-in through the bound identity is refused (lib/web-auth).
    expect(await hasAnySeat(daveUser)).toBe(false);
    expect(await hasAnySeat(await userOf("alice@acme.test"))).toBe(true);
    expect((await listMembers(acmeId)).map((m) => m.handle)).not.toContain("dave");
    const row = await db().auditEvent.findFirstOrThrow({ where: { accountId: acmeId, event: "member.removed" } });
    // The account's row names its own seat only, not what else the person lost.
    expect(row).toMatchObject({ actor: "human:alice", detail: { handle: "dave", role: "member" } });
    expect(row.detail).not.toHaveProperty("sessions_ended");
  });

  it("another account's membership id is unknown (404) and untouched", async () => {
    const gina = await seatOf(globexId, "gina");
    expect(await codeOf(removeMember(acmeId, gina, { actor: "human:alice" }))).toBe("not_found");
    expect(await codeOf(changeRole(acmeId, gina, "viewer", { actor: "human:alice" }))).toBe("not_found");
    expect((await listMembers(globexId)).find((m) => m.handle === "gina")?.role).toBe("owner");
  });
});

describe("agents, keys and bindings scoped to the administered account", () => {
  it("lists agents with key counts and last activity (presence stamp or key use, the later)", async () => {
    const created = await createAgent("lister", "acme", { actor: "human:alice" });
    let row = (await listAgents(acmeId)).find((a) => a.agentId === "lister")!;
    expect(row).toMatchObject({ activeKeys: 1, lastActivityAt: null });
    const seen = new Date("2026-12-01T10:00:00Z");
    const used = new Date("2026-12-01T11:00:00Z");
    await db().agent.update({ where: { id: created.agent.id }, data: { lastSeenAt: seen } });
    row = (await listAgents(acmeId)).find((a) => a.agentId === "lister")!;
    expect(row.lastActivityAt?.toISOString()).toBe(seen.toISOString());
    await db().apiKey.update({ where: { id: created.key.id }, data: { lastUsedAt: used } });
    row = (await listAgents(acmeId)).find((a) => a.agentId === "lister")!;
    expect(row.lastActivityAt?.toISOString()).toBe(used.toISOString());
    expect((await listAgents(globexId)).map((a) => a.agentId)).toEqual(["globex-bot"]);
    expect(await codeOf(agentInAccount(globexId, created.agent.id))).toBe("not_found");
  });

  it("rotation adds a key and keeps the old one; revoke by another account's admin is 404 and changes nothing", async () => {
    const ref = { agentId: "lister", accountSlug: "acme" };
    const before = await listKeys(ref);
    const rotated = await rotateKey(ref, { actor: "human:adam" });
    const keys = await listKeys(ref);
    expect(keys).toHaveLength(before.length + 1);
    expect(keys.every((k) => k.revokedAt === null)).toBe(true);
    expect(await codeOf(revokeKey(rotated.key.id, { actor: "human:gina", accountId: globexId }))).toBe("not_found");
    expect((await listKeys(ref)).find((k) => k.id === rotated.key.id)?.revokedAt).toBeNull();
    await revokeKey(rotated.key.id, { actor: "human:adam", accountId: acmeId });
    expect((await listKeys(ref)).find((k) => k.id === rotated.key.id)?.revokedAt).not.toBeNull();
    const events = await db().auditEvent.findMany({
      where: { accountId: acmeId, event: { in: ["key.rotated", "key.revoked"] } },
      orderBy: { id: "asc" },
    });
    expect(events.map((e) => [e.event, e.actor])).toEqual([
      ["key.rotated", "human:adam"],
      ["key.revoked", "human:adam"],
    ]);
    expect(await db().auditEvent.count({ where: { accountId: globexId, event: "key.revoked" } })).toBe(0);
  });

  it("bindings list ref names only; another account cannot revoke them", async () => {
    const b = await addBinding(
      {
        agentRef: { agentId: "lister", accountSlug: "acme" },
        origin: "https://hooks.acme.test",
        secretRef: "cb",
        secret: "TOP-SECRET-VALUE",
      },
      { actor: "human:alice" },
    );
    const listed = await listAccountBindings(acmeId);
    expect(listed.find((x) => x.id === b.id)).toMatchObject({
      agentId: "lister",
      origin: "https://hooks.acme.test",
      secretRefs: ["cb"],
    });
    expect(JSON.stringify(listed)).not.toContain("TOP-SECRET-VALUE");
    expect(await listAccountBindings(globexId)).toEqual([]);
    expect(await codeOf(revokeBinding(b.id, { actor: "human:gina", accountId: globexId }))).toBe("not_found");
    expect((await listAccountBindings(acmeId)).some((x) => x.id === b.id)).toBe(true);
    await revokeBinding(b.id, { actor: "human:alice", accountId: acmeId });
    expect((await listAccountBindings(acmeId)).some((x) => x.id === b.id)).toBe(false);
    const trail = await db().auditEvent.findMany({
      where: { accountId: acmeId, event: { startsWith: "binding." } },
      orderBy: { id: "asc" },
    });
    expect(trail.map((e) => [e.event, e.actor])).toEqual([
      ["binding.added", "human:alice"],
      ["binding.revoked", "human:alice"],
    ]);
    expect(JSON.stringify(trail.map((e) => e.detail))).not.toContain("TOP-SECRET-VALUE");
  });

  it("redrive of an unknown or foreign delivery is 404", async () => {
    expect(await codeOf(redriveDelivery("del_nope", { actor: "human:alice", accountId: acmeId }))).toBe("not_found");
  });
});

describe("personal access tokens, self-service", () => {
  it("create, list with last use, revoke own; someone else's token is 404; audited in the person's stream", async () => {
    const bob = await userOf("bob@acme.test");
    const alice = await userOf("alice@acme.test");
    const mine = await createTokenForUser(bob, { self: true });
    expect(mine.token).toMatch(/^ma2h_pat_/);
    const listed = await listTokens(bob);
    expect(listed.find((t) => t.id === mine.id)).toMatchObject({ revokedAt: null, lastUsedAt: null });
    expect(JSON.stringify(listed)).not.toContain(mine.token);
    expect(await codeOf(revokeToken(mine.id, { self: true, owner: alice }))).toBe("not_found");
    expect((await listTokens(bob)).find((t) => t.id === mine.id)?.revokedAt).toBeNull();
    await revokeToken(mine.id, { self: true, owner: bob });
    expect((await listTokens(bob)).find((t) => t.id === mine.id)?.revokedAt).not.toBeNull();
    // Audited in bob's own stream, never in an account's (test/person-audit.test.ts).
    const rows = await db().auditEvent.findMany({
      where: { event: { startsWith: "token." }, detail: { equals: { token_id: mine.id } } },
      orderBy: { id: "asc" },
    });
    expect(rows.map((r) => [r.event, r.userId, r.accountId, r.actor])).toEqual([
      ["token.created", bob, null, `user:${bob}`],
      ["token.revoked", bob, null, `user:${bob}`],
    ]);
  });
});

describe("account settings: agents listing each other's sessions (§16.4)", () => {
  it("off by default; an owner switches it, audited with both values; the same value again is a no-op", async () => {
    expect(await agentSessionVisibilityOf(acmeId)).toBe(false);
    const asAlice = { actor: "human:alice", accountId: acmeId, role: "owner" };
    expect(await setAgentSessionVisibility("acme", true, asAlice)).toEqual({
      slug: "acme",
      enabled: true,
      changed: true,
    });
    expect(await agentSessionVisibilityOf(acmeId)).toBe(true);
    expect((await setAgentSessionVisibility("acme", true, asAlice)).changed).toBe(false);
    await setAgentSessionVisibility("acme", false, asAlice);
    const rows = await db().auditEvent.findMany({
      where: { accountId: acmeId, event: "account.session_visibility_changed" },
      orderBy: { id: "asc" },
    });
    expect(rows.map((r) => [r.actor, r.detail])).toEqual([
      ["human:alice", { from: false, to: true }],
      ["human:alice", { from: true, to: false }],
    ]);
  });

  it("an admin who is not an owner, another account's owner and a non-boolean are refused and change nothing", async () => {
    const before = await db().auditEvent.count({ where: { event: "account.session_visibility_changed" } });
    const asAdam = { actor: "human:adam", accountId: acmeId, role: "admin" };
    expect(await codeOf(setAgentSessionVisibility("acme", true, asAdam))).toBe("not_authorized");
    const asGina = { actor: "human:gina", accountId: globexId, role: "owner" };
    expect(await codeOf(setAgentSessionVisibility("acme", true, asGina))).toBe("not_found");
    const asAlice = { actor: "human:alice", accountId: acmeId, role: "owner" };
    expect(await codeOf(setAgentSessionVisibility("acme", "on", asAlice))).toBe("validation_error");
    expect(await agentSessionVisibilityOf(acmeId)).toBe(false);
    expect(await db().auditEvent.count({ where: { event: "account.session_visibility_changed" } })).toBe(before);
  });
});

describe("account settings: inter-agent messages (§8.0) and who may message an agent (§13.5)", () => {
  const asAlice = () => ({ actor: "human:alice", accountId: acmeId, role: "owner" });
  // An admin's actor of its own, so the audit-trail tests below still see only adam's earlier rows.
  const asAdmin = () => ({ actor: "human:adele", accountId: acmeId, role: "admin" });

  it("the leg is off by default; only an owner opts in or out, audited; effective only under the ceiling", async () => {
    expect(await interAgentEnabledOf(acmeId)).toBe(false);
    expect(await codeOf(setInterAgentEnabled("acme", true, asAdmin()))).toBe("not_authorized");
    const asGina = { actor: "human:gina", accountId: globexId, role: "owner" };
    expect(await codeOf(setInterAgentEnabled("acme", true, asGina))).toBe("not_found");
    expect(await codeOf(setInterAgentEnabled("acme", "on", asAlice()))).toBe("validation_error");
    expect(await interAgentEnabledOf(acmeId)).toBe(false);
    expect(await setInterAgentEnabled("acme", true, asAlice())).toEqual({ slug: "acme", enabled: true, changed: true });
    expect(await interAgentEnabledOf(acmeId)).toBe(true);
    expect(await interAgentEnabledOf(globexId)).toBe(false); // per account
    process.env.MA2H_INTER_AGENT = "0";
    resetEnvCache();
    try {
      expect(await interAgentStateOf(acmeId)).toEqual({ optedIn: true, ceiling: false, effective: false });
      expect(await interAgentEnabledOf(acmeId)).toBe(false);
    } finally {
      delete process.env.MA2H_INTER_AGENT;
      resetEnvCache();
    }
    expect(await codeOf(setInterAgentEnabled("acme", false, asAdmin()))).toBe("not_authorized");
    await setInterAgentEnabled("acme", false, asAlice());
    const rows = await db().auditEvent.findMany({
      where: { accountId: acmeId, event: "account.inter_agent_changed" },
      orderBy: { id: "asc" },
    });
    expect(rows.map((r) => [r.actor, r.detail])).toEqual([
      ["human:alice", { from: false, to: true }],
      ["human:alice", { from: true, to: false }],
    ]);
  });

  it("owners and admins set an agent's senders; a member, a viewer and another account are refused", async () => {
    const A = "deploybot/dev-team";
    const row = (await db().agent.findFirstOrThrow({ where: { accountId: acmeId, agentId: A } })).id;
    expect(await readSenderAllowlist(row)).toEqual({ any: true });
    for (const role of ["member", "viewer"]) {
      const as = { actor: "human:bob", accountId: acmeId, role };
      expect(await codeOf(setSenderAllowlist(as, acmeId, A, { allow: [] }))).toBe("not_authorized");
    }
    const asGina = { actor: "human:gina", accountId: globexId, role: "owner" };
    expect(await codeOf(setSenderAllowlist(asGina, acmeId, A, { allow: [] }))).toBe("not_found");
    expect(await codeOf(setSenderAllowlist(asGina, globexId, A, { allow: [] }))).toBe("not_found");
    expect(await codeOf(setSenderAllowlist(asAdmin(), acmeId, A, { allow: ["x"], any: true }))).toBe(
      "validation_error",
    );
    expect(await codeOf(setSenderAllowlist(asAdmin(), acmeId, A, { allow: ["a b"] }))).toBe("invalid_field");
    expect(await readSenderAllowlist(row)).toEqual({ any: true });

    const set = await setSenderAllowlist(asAdmin(), acmeId, A, { allow: ["globex-bot", "ci/later"] });
    expect(set).toMatchObject({ changed: true, senders: { allow: ["globex-bot", "ci/later"] } });
    // globex-bot is another account's agent: listed, but not an agent of acme.
    expect(set.unknown).toEqual(["globex-bot", "ci/later"]);
    const policy = await readSenderAllowlist(row);
    expect([senderAllowed(policy, "ci/later"), senderAllowed(policy, "other")]).toEqual([true, false]);
    expect((await setSenderAllowlist(asAlice(), acmeId, A, { allow: ["globex-bot", "ci/later"] })).changed).toBe(false);
    // The page draws the form for owners and admins only; it reads the same policy for everyone.
    const seat = (role: "admin" | "member") => ({ accountId: acmeId, handle: "x", role });
    expect(await agentSendersView(seat("admin"), A)).toMatchObject({
      canEdit: true,
      unknown: ["globex-bot", "ci/later"],
    });
    expect(await agentSendersView(seat("member"), A)).toMatchObject({
      canEdit: false,
      senders: { allow: ["globex-bot", "ci/later"] },
      interAgentOpen: false,
    });
    await setSenderAllowlist(asAlice(), acmeId, A, { any: true });
    expect(senderAllowed(await readSenderAllowlist(row), "anyone")).toBe(true);
    const rows = await db().auditEvent.findMany({
      where: { accountId: acmeId, event: "agent.senders_changed" },
      orderBy: { id: "asc" },
    });
    expect(rows.map((r) => [r.actor, r.detail])).toEqual([
      ["human:adele", { agent_id: A, from: { any: true }, to: { allow: ["globex-bot", "ci/later"] } }],
      ["human:alice", { agent_id: A, from: { allow: ["globex-bot", "ci/later"] }, to: { any: true } }],
    ]);
  });
});

describe("an agent's page: its sessions and the operator's hard stop (§16, §16.4.1)", () => {
  const A = "deploybot/dev-team";
  const register = (label?: string) =>
    registerSession(
      new Headers({ authorization: `Bearer ${hub.account("acme").keys[A]}` }),
      label ? { label, run_id: "run_page" } : {},
    );
  const seat = async (email: string, slug = "acme") => (await seatBySlug(await userOf(email), slug))!;

  it("every seat reads the sessions; only owners and admins get the stop; the stop shows who and since when", async () => {
    const live = await register("nightly");
    const alice = await seat("alice@acme.test");
    const agent = await agentForStop(alice, A);
    const view = await agentSessionsView(alice, agent.rowId);
    expect(view.canStop).toBe(true);
    expect(view.stop).toBeNull();
    expect(view.sessions.find((s) => s.id === live.id)).toMatchObject({
      state: "active",
      label: "nightly",
      run_id: "run_page",
    });
    for (const [email, canStop] of [
      ["adam@acme.test", true],
      ["bob@acme.test", false],
      ["vic@acme.test", false],
    ] as const) {
      const v = await agentSessionsView(await seat(email), agent.rowId);
      expect([email, v.canStop, v.sessions.some((s) => s.id === live.id)]).toEqual([email, canStop, true]);
    }
    // The verbs the page's buttons call refuse a member, whatever the page drew.
    expect(await codeOf(stopAgent(await seat("bob@acme.test"), agent))).toBe("not_authorized");
    // Another account's agent is not found through a seat elsewhere.
    expect(await codeOf(agentForStop(await seat("gina@globex.test", "globex"), A))).toBe("not_found");

    await stopAgent(alice, agent);
    const stopped = await agentSessionsView(await seat("vic@acme.test"), agent.rowId);
    expect(stopped.stop).toEqual({ by: "human:alice", at: expect.any(String) });
    expect(stopped.sessions.find((s) => s.id === live.id)).toMatchObject({ state: "closed", closed_by_operator: true });
    expect(await codeOf(register())).toBe("session_closed_by_operator");

    await resumeAgent(alice, agent);
    expect((await agentSessionsView(alice, agent.rowId)).stop).toBeNull();
    expect((await register()).state).toBe("active");
    const events = await db().auditEvent.findMany({
      where: { accountId: acmeId, event: { in: ["agent.stopped", "agent.resumed"] } },
      orderBy: { id: "asc" },
    });
    expect(events.map((e) => [e.event, e.actor])).toEqual([
      ["agent.stopped", "human:alice"],
      ["agent.resumed", "human:alice"],
    ]);
  });

  it("an item's submitting session: its state while kept, for the same agent in the item's account only", async () => {
    const s = await register("for-an-item");
    const alice = await userOf("alice@acme.test");
    expect(await submittingSession(alice, { account: "acme", agentId: A }, s.id)).toEqual({
      id: s.id,
      state: "active",
      closedByOperator: false,
      label: "for-an-item",
    });
    // Named by an envelope of another agent, or seen from another account: the id, nothing more.
    expect((await submittingSession(alice, { account: "acme", agentId: "other-bot" }, s.id)).state).toBeNull();
    const gina = await userOf("gina@globex.test");
    expect((await submittingSession(gina, { account: "acme", agentId: A }, s.id)).state).toBeNull();
    expect((await submittingSession(alice, { account: "acme", agentId: A }, "sess_unknown")).state).toBeNull();
  });
});

describe("audit trail", () => {
  it("is append-only at the database: UPDATE and DELETE are refused, INSERT works", async () => {
    const row = await db().auditEvent.findFirstOrThrow({ where: { accountId: acmeId } });
    await expect(db().auditEvent.update({ where: { id: row.id }, data: { actor: "human:mallory" } })).rejects.toThrow(
      /append-only/,
    );
    await expect(db().auditEvent.delete({ where: { id: row.id } })).rejects.toThrow(/append-only/);
    await expect(db().$executeRaw`UPDATE audit_events SET event = 'x' WHERE id = ${row.id}`).rejects.toThrow(
      /append-only/,
    );
    await expect(db().$executeRaw`DELETE FROM audit_events WHERE account_id = ${acmeId}`).rejects.toThrow(
      /append-only/,
    );
    expect((await db().auditEvent.findUniqueOrThrow({ where: { id: row.id } })).actor).toBe(row.actor);
  });

  it("filters by actor, kind (exact or family) and time; pages newest first", async () => {
    const byAdam = await listAudit(acmeId, { actor: "human:adam" });
    expect(byAdam.entries.map((e) => e.event).sort()).toEqual([
      "key.revoked",
      "key.rotated",
      "member.role_changed",
      "member.role_changed",
    ]);
    const adamsKeys = await listAudit(acmeId, { actor: "human:adam", event: "key.*" });
    expect(adamsKeys.entries.map((e) => e.event).sort()).toEqual(["key.revoked", "key.rotated"]);
    const members = await listAudit(acmeId, { event: "member.*" });
    expect(new Set(members.entries.map((e) => e.event))).toEqual(
      new Set(["member.added", "member.role_changed", "member.removed"]),
    );
    const exact = await listAudit(acmeId, { event: "member.removed" });
    expect(exact.entries).toHaveLength(1);
    const future = await listAudit(acmeId, { from: new Date(clock.now().getTime() + 60_000) });
    expect(future.entries).toEqual([]);
    const past = await listAudit(acmeId, { to: new Date("2000-01-01T00:00:00Z") });
    expect(past.entries).toEqual([]);
    // Never another account's rows.
    expect((await listAudit(acmeId, { actor: "human:gus" })).entries).toEqual([]);
    // Paging: two at a time walks everything once, newest first.
    const all = (await listAudit(acmeId, {}, { limit: 500 })).entries;
    const walked: string[] = [];
    let before: string | undefined;
    for (;;) {
      const page = await listAudit(acmeId, {}, { before, limit: 2 });
      walked.push(...page.entries.map((e) => e.id));
      if (!page.next) break;
      before = page.next;
    }
    expect(walked).toEqual(all.map((e) => e.id));
    // A malformed or out-of-range cursor is no cursor, never a database error.
    expect(
      (await listAudit(acmeId, {}, { before: "2026-12-02T00:00:00.000Z_9999999999999999999", limit: 500 })).entries,
    ).toHaveLength(all.length);
    expect((await listAudit(acmeId, {}, { before: "garbage", limit: 500 })).entries).toHaveLength(all.length);
    const ats = all.map((e) => e.at);
    expect([...ats].sort().reverse()).toEqual(ats);
  });

  it("parses filters from a query string, ignoring junk", () => {
    expect(
      parseAuditFilters({ actor: " human:alice ", kind: "key.*", from: "2026-12-02T18:00", to: "not a time" }),
    ).toEqual({
      actor: "human:alice",
      event: "key.*",
      from: new Date("2026-12-02T18:00:00Z"),
      to: undefined,
    });
  });

  it("exports the filtered entries as JSON Lines, oldest first, one object per line", async () => {
    let out = "";
    for await (const line of auditJsonLines(acmeId, { event: "key.*" })) out += line;
    expect(out.endsWith("\n")).toBe(true);
    const lines = out
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.event, l.actor])).toEqual([
      ["key.rotated", "human:adam"],
      ["key.revoked", "human:adam"],
    ]);
    for (const l of lines) {
      // Each line also carries its stream and seal (null until the worker seals it).
      expect(Object.keys(l).sort()).toEqual([
        "actor",
        "at",
        "detail",
        "event",
        "hash",
        "id",
        "message_id",
        "prev_hash",
        "seq",
        "stream",
      ]);
      expect(l.detail.agent_id).toBe("lister");
    }
    let everything = 0;
    for await (const _ of auditJsonLines(acmeId, {})) everything += 1;
    expect(everything).toBe(await db().auditEvent.count({ where: { accountId: acmeId } }));
  });
});

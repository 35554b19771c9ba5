/**
 * An account's groups of its people (`group:<name>`): who approval routing asks, and the teams that
 * sponsor agents. Owners and the operator (the CLI) change them; admins only read them
 * (docs/groups.md). Every change is one transaction with its audit row, under the account's row
 * lock (lib/principals/seat-locks.ts), so it serialises with seat changes: a person removed from the
 * account leaves every group at once (the row cascades), and nothing adds them back concurrently.
 */
import { db, type Tx } from "../db";
import { clock } from "../clock";
import { HubError } from "@ma2h/protocol/errors";
import { mintId } from "@ma2h/protocol/ids";
import { AUDIT_EVENT } from "../audit/events";
import { type AuditRow, writeAudit } from "../audit/write";
import { uniquely } from "../db-errors";
import { actorOf, requireOwnerFor, type AdminOptions } from "../principals/admin-scope";
import { lockAccount } from "../principals/seat-locks";
import { requireSeatId } from "../principals/seats";
import { groupNameOf, handleOf, MAX_GROUP_DESCRIPTION, validateGroupName } from "../principals/names";

export type GroupMemberSource = "manual" | "idp";

export interface GroupMemberInfo {
  handle: string;
  source: GroupMemberSource;
}

export interface GroupInfo {
  id: string;
  name: string;
  description: string | null;
  createdAt: Date;
  /** By handle. */
  members: GroupMemberInfo[];
  /** The identity provider's groups-claim values that put a person in this group at sign-in. */
  claimValues: string[];
}

/** The account's groups by name, with their members and mappings. */
export async function listGroups(accountId: string): Promise<GroupInfo[]> {
  const rows = await db().accountGroup.findMany({
    where: { accountId },
    select: {
      id: true,
      name: true,
      description: true,
      createdAt: true,
      members: { select: { source: true, membership: { select: { handle: true } } } },
      mappings: { select: { claimValue: true } },
    },
    orderBy: [{ name: "asc" }],
  });
  return rows.map((g) => ({
    id: g.id,
    name: g.name,
    description: g.description,
    createdAt: g.createdAt,
    members: g.members
      .map((m) => ({ handle: m.membership.handle, source: m.source as GroupMemberSource }))
      .sort((a, b) => a.handle.localeCompare(b.handle)),
    claimValues: g.mappings.map((m) => m.claimValue).sort(),
  }));
}

/** One group by name (`group:<name>` or the bare name), or `404`. */
export async function readGroup(accountId: string, ref: string): Promise<GroupInfo> {
  const name = groupNameOf(ref);
  const group = (await listGroups(accountId)).find((g) => g.name === name);
  if (!group) throw new HubError("not_found", `group ${name} not found`);
  return group;
}

/** The handles of a group's members (empty for an unknown group: routing treats it as nobody). */
export async function groupMemberHandles(accountId: string, name: string, q: Tx = db()): Promise<string[]> {
  const rows = await q.groupMember.findMany({
    where: { group: { accountId, name } },
    select: { membership: { select: { handle: true } } },
  });
  return rows.map((r) => r.membership.handle).sort();
}

/** The names of the groups a person (by handle) is in. */
export async function groupsOfHandle(accountId: string, handle: string, q: Tx = db()): Promise<string[]> {
  const rows = await q.groupMember.findMany({
    where: { membership: { accountId, handle } },
    select: { group: { select: { name: true } } },
  });
  return rows.map((r) => r.group.name).sort();
}

function changeBy(opts: AdminOptions | undefined): void {
  requireOwnerFor(opts, "change groups");
}

/** Locks the account (lib/principals/seat-locks.ts) and reads its group `name`, or `404`. */
export async function lockedGroup(tx: Tx, accountId: string, name: string): Promise<{ id: string; name: string }> {
  await lockAccount(tx, accountId);
  const group = await tx.accountGroup.findFirst({ where: { accountId, name }, select: { id: true, name: true } });
  if (!group) throw new HubError("not_found", `group ${name} not found`);
  return group;
}

export async function createGroup(
  accountId: string,
  name: string,
  description: string | undefined,
  opts?: AdminOptions,
  /** The caller's transaction (a policy apply), holding the account's lock; else one of its own. */
  within?: Tx,
): Promise<GroupInfo> {
  changeBy(opts);
  validateGroupName(name);
  const text = description?.trim() || null;
  if (text && text.length > MAX_GROUP_DESCRIPTION)
    throw new HubError("invalid_field", `a group's description is at most ${MAX_GROUP_DESCRIPTION} characters`);
  const id = mintId("group");
  const now = clock.now();
  const run = async (tx: Tx) => {
    await lockAccount(tx, accountId);
    await tx.accountGroup.create({ data: { id, accountId, name, description: text, createdAt: now } });
    await writeAudit(tx, {
      accountId,
      actor: actorOf(opts),
      event: AUDIT_EVENT.groupCreated,
      detail: { group: name, group_id: id },
      at: now,
    });
  };
  await uniquely(`group ${name} already exists`, () => (within ? run(within) : db().$transaction(run)));
  return { id, name, description: text, createdAt: now, members: [], claimValues: [] };
}

/** Deletes a group, its members and mappings, and its agent sponsorships (each one audited). */
export async function deleteGroup(accountId: string, ref: string, opts?: AdminOptions): Promise<void> {
  changeBy(opts);
  const name = groupNameOf(ref);
  await db().$transaction(async (tx) => {
    const group = await lockedGroup(tx, accountId, name);
    // A group the approval policy assigns cannot go: the rules naming it would ask nobody through
    // it and refuse the asks they route (docs/policies.md). The policy is changed first.
    const policy = await tx.accountPolicy.findUnique({ where: { accountId }, select: { rules: true } });
    const naming = (
      (policy?.rules ?? []) as Array<{ name?: string; assign?: string[]; require_from?: string; escalate_to?: string }>
    )
      .filter(
        (r) => r.assign?.includes(`group:${name}`) || r.require_from === name || r.escalate_to === `group:${name}`,
      )
      .map((r) => r.name);
    if (naming.length > 0)
      throw new HubError(
        "invalid_field",
        `group ${name} is assigned, required or escalated to by the approval policy (rule ${naming.join(", ")}); change the policy first`,
      );
    const sponsored = await tx.agentSponsor.findMany({
      where: { groupId: group.id },
      select: { agent: { select: { id: true, agentId: true } } },
    });
    await tx.accountGroup.delete({ where: { id: group.id } });
    await writeAudit(tx, [
      { accountId, actor: actorOf(opts), event: AUDIT_EVENT.groupDeleted, detail: { group: name, group_id: group.id } },
      ...sponsored.map((s) => ({
        accountId,
        actor: actorOf(opts),
        event: AUDIT_EVENT.agentSponsorsChanged,
        detail: {
          agent_row_id: s.agent.id,
          agent_id: s.agent.agentId,
          removed: [`group:${name}`],
          why: "group deleted",
        },
      })),
    ]);
  });
}

/**
 * Puts people (`human:<handle>` or the handle) in a group by hand, all or none: one unknown person
 * refuses the whole change. Idempotent: a person already in it stays (a member from the identity
 * provider becomes a manual one, which sign-ins keep); only real changes are audited.
 */
export async function addGroupMembers(
  accountId: string,
  ref: string,
  people: readonly string[],
  opts?: AdminOptions,
  within?: Tx,
): Promise<void> {
  changeBy(opts);
  const name = groupNameOf(ref);
  const handles = [...new Set(people.map(handleOf))];
  const run = async (tx: Tx) => {
    const group = await lockedGroup(tx, accountId, name);
    const audit: AuditRow[] = [];
    for (const handle of handles) {
      const seat = { id: await requireSeatId(tx, accountId, handle) };
      const key = { groupId_membershipId: { groupId: group.id, membershipId: seat.id } };
      const had = await tx.groupMember.findUnique({ where: key, select: { source: true } });
      if (had?.source === "manual") continue;
      if (had) await tx.groupMember.update({ where: key, data: { source: "manual" } });
      else
        await tx.groupMember.create({
          data: { groupId: group.id, membershipId: seat.id, source: "manual", createdAt: clock.now() },
        });
      audit.push({
        accountId,
        actor: actorOf(opts),
        event: AUDIT_EVENT.groupMemberAdded,
        detail: { group: name, handle, source: "manual" },
      });
    }
    await writeAudit(tx, audit);
  };
  await (within ? run(within) : db().$transaction(run));
}

export function addGroupMember(accountId: string, ref: string, person: string, opts?: AdminOptions): Promise<void> {
  return addGroupMembers(accountId, ref, [person], opts);
}

/**
 * Takes people out of a group (whoever put them there), all or none: one who is not in it is `404`
 * and nothing changes.
 */
export async function removeGroupMembers(
  accountId: string,
  ref: string,
  people: readonly string[],
  opts?: AdminOptions,
  within?: Tx,
): Promise<void> {
  changeBy(opts);
  const name = groupNameOf(ref);
  const handles = [...new Set(people.map(handleOf))];
  const run = async (tx: Tx) => {
    const group = await lockedGroup(tx, accountId, name);
    const audit: AuditRow[] = [];
    for (const handle of handles) {
      const seat = { id: await requireSeatId(tx, accountId, handle) };
      const gone = await tx.groupMember.deleteMany({ where: { groupId: group.id, membershipId: seat.id } });
      if (gone.count === 0) throw new HubError("not_found", `human:${handle} is not in group ${name}`);
      audit.push({
        accountId,
        actor: actorOf(opts),
        event: AUDIT_EVENT.groupMemberRemoved,
        detail: { group: name, handle, source: "manual" },
      });
    }
    await writeAudit(tx, audit);
  };
  await (within ? run(within) : db().$transaction(run));
}

export function removeGroupMember(accountId: string, ref: string, person: string, opts?: AdminOptions): Promise<void> {
  return removeGroupMembers(accountId, ref, [person], opts);
}

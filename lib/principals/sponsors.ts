/**
 * Agent sponsors: the people accountable for an agent — whose coding agent it is, the team that runs
 * the bot — named `human:<handle>` or `group:<name>` of the agent's account (docs/groups.md). The
 * person who creates an agent in the browser is its first sponsor; owners and the operator change
 * them; admins read them. Sponsors come from the Hub's own rows only: nothing an agent sends (its
 * labels, `run_id`, any field) ever decides who a person or a sponsor is.
 */
import { db, type Tx } from "../db";
import { clock } from "../clock";
import { HubError } from "@ma2h/protocol/errors";
import { mintId } from "@ma2h/protocol/ids";
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit } from "../audit/write";
import { parsePersonOrGroup, refOf, type PersonOrGroup } from "./names";
import { actorOf, requireOwnerFor, type AdminOptions } from "./admin-scope";
import { lockAccount } from "./seat-locks";
import { requireSeatId, seatIdByHandle } from "./seats";

/** The most sponsors one agent has (a longer list is a group). */
export const MAX_SPONSORS = 20;

/** People first, then groups, each by name: the order pages, the CLI and audit rows show. */
function byKindThenName(a: string, b: string): number {
  const ka = a.startsWith("human:") ? 0 : 1;
  const kb = b.startsWith("human:") ? 0 : 1;
  return ka - kb || a.localeCompare(b);
}

/** An agent's sponsors as `human:<handle>` / `group:<name>`. */
export async function listSponsors(agentRowId: string, q: Tx = db()): Promise<string[]> {
  const rows = await q.agentSponsor.findMany({
    where: { agentRowId },
    select: { membership: { select: { handle: true } }, group: { select: { name: true } } },
  });
  return rows
    .map((r) => (r.membership ? `human:${r.membership.handle}` : `group:${r.group?.name}`))
    .sort(byKindThenName);
}

/**
 * Every agent's sponsors in an account, by agent row id, in the order `listSponsors` gives: the
 * admin agents list shows them in one query rather than one per agent. An agent without sponsors
 * has no entry.
 */
export async function sponsorsByAgent(accountId: string): Promise<Map<string, string[]>> {
  const rows = await db().agentSponsor.findMany({
    where: { agent: { accountId } },
    select: { agentRowId: true, membership: { select: { handle: true } }, group: { select: { name: true } } },
  });
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const ref = r.membership ? `human:${r.membership.handle}` : `group:${r.group?.name}`;
    out.set(r.agentRowId, [...(out.get(r.agentRowId) ?? []), ref]);
  }
  for (const refs of out.values()) refs.sort(byKindThenName);
  return out;
}

/**
 * The people an agent's sponsors stand for: the sponsoring people and every member of a sponsoring
 * group, as handles (what separation of duties compares with a resolver).
 */
export async function sponsorHandles(agentRowId: string, q: Tx = db()): Promise<string[]> {
  return (await sponsorHandlesByAgent([agentRowId], q)).get(agentRowId) ?? [];
}

/**
 * `sponsorHandles` of several agents in one query (the inbox list's approval lines), by agent row
 * id; an agent without sponsors has no entry.
 */
export async function sponsorHandlesByAgent(
  agentRowIds: readonly string[],
  q: Tx = db(),
): Promise<Map<string, string[]>> {
  if (agentRowIds.length === 0) return new Map();
  const rows = await q.agentSponsor.findMany({
    where: { agentRowId: { in: [...new Set(agentRowIds)] } },
    select: {
      agentRowId: true,
      membership: { select: { handle: true } },
      group: { select: { members: { select: { membership: { select: { handle: true } } } } } },
    },
  });
  const handles = new Map<string, Set<string>>();
  for (const r of rows) {
    const set = handles.get(r.agentRowId) ?? new Set<string>();
    if (r.membership) set.add(r.membership.handle);
    for (const m of r.group?.members ?? []) set.add(m.membership.handle);
    handles.set(r.agentRowId, set);
  }
  return new Map([...handles].map(([id, set]) => [id, [...set].sort()]));
}

/** The sponsor row ids a list of refs names in the account, or `404` for the first unknown one. */
async function targetsOf(tx: Tx, accountId: string, sponsors: PersonOrGroup[]) {
  const out: Array<{ ref: string; membershipId?: string; groupId?: string }> = [];
  for (const s of sponsors) {
    if (s.kind === "human") {
      out.push({ ref: refOf(s), membershipId: await requireSeatId(tx, accountId, s.handle) });
    } else {
      const group = await tx.accountGroup.findFirst({ where: { accountId, name: s.name }, select: { id: true } });
      if (!group) throw new HubError("not_found", `group ${s.name} not found`);
      out.push({ ref: refOf(s), groupId: group.id });
    }
  }
  return out;
}

export interface SponsorChange {
  /** Refs to add (`human:<handle>` / `group:<name>`). */
  add?: readonly string[];
  /** Refs to remove. */
  remove?: readonly string[];
  /** The whole new list, in place of add/remove. */
  set?: readonly string[];
}

/**
 * Changes an agent's sponsors (owners and the operator): `set` replaces the list, `add`/`remove`
 * edit it. One audit row with what was added and removed and the list after; nothing is written
 * when nothing changes. The agent must belong to `accountId` (another account's is `404`).
 */
export async function changeSponsors(
  accountId: string,
  agentRowId: string,
  change: SponsorChange,
  opts?: AdminOptions,
  /** The caller's transaction (an agent's creation with its sponsors is one), else one of its own. */
  within?: Tx,
): Promise<string[]> {
  requireOwnerFor(opts, "change an agent's sponsors");
  const parse = (refs: readonly string[] | undefined) => [
    ...new Map((refs ?? []).map((r) => parsePersonOrGroup(r.trim())).map((p) => [refOf(p), p])).values(),
  ];
  const set = change.set === undefined ? undefined : parse(change.set);
  const add = parse(change.add);
  const remove = parse(change.remove);
  if (set && (add.length || remove.length))
    throw new HubError("validation_error", "give either the whole list or additions and removals");
  const run = async (tx: Tx) => {
    await lockAccount(tx, accountId);
    const agent = await tx.agent.findFirst({
      where: { id: agentRowId, accountId },
      select: { id: true, agentId: true },
    });
    if (!agent) throw new HubError("not_found", `agent ${agentRowId} not found`);
    const before = await listSponsors(agent.id, tx);
    const wanted = set
      ? set.map(refOf)
      : [...new Set([...before, ...add.map(refOf)])].filter((r) => !remove.map(refOf).includes(r));
    for (const r of remove.map(refOf))
      if (!before.includes(r)) throw new HubError("not_found", `${r} is not a sponsor of ${agent.agentId}`);
    if (wanted.length > MAX_SPONSORS)
      throw new HubError("invalid_field", `an agent has at most ${MAX_SPONSORS} sponsors`);
    const added = wanted.filter((r) => !before.includes(r));
    const removed = before.filter((r) => !wanted.includes(r));
    if (added.length === 0 && removed.length === 0) return before;
    const targets = await targetsOf(tx, accountId, added.map(parsePersonOrGroup));
    const gone = await targetsOf(tx, accountId, removed.map(parsePersonOrGroup));
    for (const g of gone)
      await tx.agentSponsor.deleteMany({
        where: {
          agentRowId: agent.id,
          ...(g.membershipId ? { membershipId: g.membershipId } : { groupId: g.groupId }),
        },
      });
    const now = clock.now();
    await tx.agentSponsor.createMany({
      data: targets.map((t) => ({
        id: mintId("sponsor"),
        agentRowId: agent.id,
        membershipId: t.membershipId ?? null,
        groupId: t.groupId ?? null,
        createdAt: now,
      })),
    });
    const after = [...wanted].sort(byKindThenName);
    await writeAudit(tx, {
      accountId,
      actor: actorOf(opts),
      event: AUDIT_EVENT.agentSponsorsChanged,
      detail: { agent_row_id: agent.id, agent_id: agent.agentId, added, removed, sponsors: after },
      at: now,
    });
    return after;
  };
  return within ? run(within) : db().$transaction(run);
}

/**
 * The default sponsor, inside the transaction that creates the agent: the person who created it
 * (`human:<handle>`), when a person did. The operator's CLI names sponsors explicitly instead.
 */
export async function sponsorCreator(tx: Tx, accountId: string, agentRowId: string, actor: string): Promise<string[]> {
  if (!actor.startsWith("human:")) return [];
  const membershipId = await seatIdByHandle(tx, accountId, actor.slice("human:".length));
  if (membershipId === null) return [];
  await tx.agentSponsor.create({ data: { id: mintId("sponsor"), agentRowId, membershipId, createdAt: clock.now() } });
  return [actor];
}

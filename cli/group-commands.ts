/**
 * `ma2h-hub group …` (an account's groups of its people, and the identity provider's groups-claim
 * values mapped to them) and `ma2h-hub agent sponsors` (the people accountable for an agent):
 * docs/groups.md. The CLI is the operator, `system:cli` with the owner's authority: it passes no
 * role, and the rules (names, members, audit rows) are lib/groups' and lib/principals/sponsors.ts'.
 * A command that names several people checks them all before it changes anything, so one unknown
 * person leaves the group as it was.
 */
import { HubError } from "@ma2h/protocol/errors";
import type { GroupInfo } from "../lib/groups/groups";
import { usageError, type Command, type Flags } from "./command";

function account(flags: Flags): string {
  const slug = flags.account;
  if (slug === undefined || slug === "") throw usageError("--account is required");
  return slug;
}

const groupJson = (g: GroupInfo) => ({
  name: g.name,
  description: g.description,
  created_at: g.createdAt.toISOString(),
  members: g.members.map((m) => ({ person: `human:${m.handle}`, source: m.source })),
  claim_values: g.claimValues,
});

function groupText(g: GroupInfo): string {
  const members = g.members.map((m) => `human:${m.handle}${m.source === "idp" ? " (identity provider)" : ""}`);
  return [
    `group:${g.name}${g.description ? ` — ${g.description}` : ""}`,
    `  members: ${members.join(", ") || "none"}`,
    `  mapped from: ${g.claimValues.map((v) => JSON.stringify(v)).join(", ") || "no groups-claim value"}`,
  ].join("\n");
}

/** The people a command names, as distinct handles, refused as a whole on the first bad one. */
async function handlesOf(refs: string[]): Promise<string[]> {
  const { handleOf } = await import("../lib/principals/names");
  return [...new Set(refs.map(handleOf))];
}

/** `404` for the first handle without a seat in the account, before anything is changed. */
async function requireSeats(accountId: string, slug: string, handles: string[]): Promise<void> {
  const { listMembers } = await import("../lib/principals/members");
  const seated = new Set((await listMembers(accountId)).map((m) => m.handle));
  const missing = handles.find((h) => !seated.has(h));
  if (missing !== undefined) throw new HubError("not_found", `human:${missing} is not a member of account ${slug}`);
}

/** The account and the group a command names, read before the change (`404` for either). */
async function target(ref: string, flags: Flags) {
  const slug = account(flags);
  const { findAccount } = await import("../lib/principals/accounts");
  const a = await findAccount(slug);
  const groups = await import("../lib/groups/groups");
  return { account: a, group: await groups.readGroup(a.id, ref), groups };
}

/** The group after a change, as every changing command prints it. */
async function shown(accountId: string, name: string, said: string) {
  const { readGroup } = await import("../lib/groups/groups");
  const g = await readGroup(accountId, name);
  return { json: { group: groupJson(g) }, text: `${said}\n${groupText(g)}` };
}

export const GROUP_COMMANDS: Record<string, Command> = {
  "group create": {
    usage: "group create <name> --account <slug> [--description <text>]",
    args: 1,
    async run([ref], f) {
      const slug = account(f);
      const { groupNameOf } = await import("../lib/principals/names");
      const name = groupNameOf(ref!);
      const { findAccount } = await import("../lib/principals/accounts");
      const { createGroup } = await import("../lib/groups/groups");
      const g = await createGroup((await findAccount(slug)).id, name, f.description);
      return { json: { group: groupJson(g) }, text: `group ${g.name} created in ${slug}` };
    },
  },
  "group delete": {
    usage: "group delete <name> --account <slug>",
    args: 1,
    async run([ref], f) {
      const { account: a, group, groups } = await target(ref!, f);
      await groups.deleteGroup(a.id, group.name);
      return {
        json: { group: { name: group.name, deleted: true } },
        text: `group ${group.name} deleted from ${a.slug}, with its members, mappings and agent sponsorships`,
      };
    },
  },
  "group list": {
    usage: "group list --account <slug>",
    args: 0,
    async run(_args, f) {
      const { findAccount } = await import("../lib/principals/accounts");
      const a = await findAccount(account(f));
      const { listGroups } = await import("../lib/groups/groups");
      const list = await listGroups(a.id);
      return {
        json: { groups: list.map(groupJson) },
        text: list.map(groupText).join("\n") || `no groups in ${a.slug}`,
      };
    },
  },
  "group show": {
    usage: "group show <name> --account <slug>",
    args: 1,
    async run([ref], f) {
      const { group } = await target(ref!, f);
      return { json: { group: groupJson(group) }, text: groupText(group) };
    },
  },
  "group add": {
    usage: "group add <name> human:<handle>… --account <slug>",
    args: 2,
    variadic: true,
    async run([ref, ...people], f) {
      const handles = await handlesOf(people);
      const { account: a, group, groups } = await target(ref!, f);
      await requireSeats(a.id, a.slug, handles);
      await groups.addGroupMembers(a.id, group.name, handles);
      return shown(a.id, group.name, `added to group ${group.name}: ${handles.map((h) => `human:${h}`).join(", ")}`);
    },
  },
  "group remove": {
    usage: "group remove <name> human:<handle>… --account <slug>",
    args: 2,
    variadic: true,
    async run([ref, ...people], f) {
      const handles = await handlesOf(people);
      const { account: a, group, groups } = await target(ref!, f);
      const inIt = new Set(group.members.map((m) => m.handle));
      const stranger = handles.find((h) => !inIt.has(h));
      if (stranger !== undefined) throw new HubError("not_found", `human:${stranger} is not in group ${group.name}`);
      await groups.removeGroupMembers(a.id, group.name, handles);
      return shown(
        a.id,
        group.name,
        `removed from group ${group.name}: ${handles.map((h) => `human:${h}`).join(", ")}`,
      );
    },
  },
  "group map": {
    usage: "group map <name> <claim-value> --account <slug>",
    args: 2,
    async run([ref, value], f) {
      const { account: a, group } = await target(ref!, f);
      const { addGroupMapping } = await import("../lib/groups/claims");
      await addGroupMapping(a.id, group.name, value!);
      // A mapping acts at each person's next sign-in, not now (docs/groups.md).
      return shown(a.id, group.name, `group ${group.name} is now mapped from ${JSON.stringify(value!.trim())}`);
    },
  },
  "group unmap": {
    usage: "group unmap <name> <claim-value> --account <slug>",
    args: 2,
    async run([ref, value], f) {
      const { account: a, group } = await target(ref!, f);
      const { removeGroupMapping } = await import("../lib/groups/claims");
      await removeGroupMapping(a.id, group.name, value!);
      return shown(a.id, group.name, `group ${group.name} is no longer mapped from ${JSON.stringify(value!.trim())}`);
    },
  },
};

/** `--set a,b`: the refs, trimmed; `--set ''` is the empty list (no sponsor). */
function refList(flag: string): string[] {
  if (flag.trim() === "") return [];
  const refs = flag.split(",").map((r) => r.trim());
  if (refs.includes("")) throw usageError("--set: an empty sponsor (a stray comma?)");
  return refs;
}

/**
 * The sponsors `agent create --sponsor` names, checked whole before the agent is made (createAgent
 * adds them in the agent's own transaction, which a refused sponsor rolls back too): the check
 * answers before any write, with the same messages.
 */
export async function checkedSponsors(slug: string, refs: string[]): Promise<string[]> {
  const { parsePersonOrGroup, refOf } = await import("../lib/principals/names");
  const parsed = [...new Map(refs.map((r) => parsePersonOrGroup(r.trim())).map((p) => [refOf(p), p])).values()];
  if (parsed.length === 0) return [];
  const { MAX_SPONSORS } = await import("../lib/principals/sponsors");
  if (parsed.length > MAX_SPONSORS)
    throw new HubError("invalid_field", `an agent has at most ${MAX_SPONSORS} sponsors`);
  const { findAccount } = await import("../lib/principals/accounts");
  const a = await findAccount(slug);
  const handles = parsed.flatMap((p) => (p.kind === "human" ? [p.handle] : []));
  if (handles.length > 0) await requireSeats(a.id, a.slug, handles);
  const { listGroups } = await import("../lib/groups/groups");
  const names = new Set((await listGroups(a.id)).map((g) => g.name));
  const unknown = parsed.find((p) => p.kind === "group" && !names.has(p.name));
  if (unknown?.kind === "group") throw new HubError("not_found", `group ${unknown.name} not found`);
  return parsed.map(refOf);
}

export const SPONSOR_COMMANDS: Record<string, Command> = {
  "agent sponsors": {
    usage: "agent sponsors <agent.id> --account <slug> [--add <ref>]… [--remove <ref>]… [--set <ref>[,<ref>…]]",
    args: 1,
    async run([agentId], f, lists) {
      // Refs are human:<handle> or group:<name> of the agent's account; no change flag prints the list.
      const slug = account(f);
      const change = {
        ...(f.set === undefined ? {} : { set: refList(f.set) }),
        ...(lists.add ? { add: lists.add } : {}),
        ...(lists.remove ? { remove: lists.remove } : {}),
      };
      const changing = Object.keys(change).length > 0;
      const { resolveAgent } = await import("../lib/principals/agents");
      const { changeSponsors, listSponsors } = await import("../lib/principals/sponsors");
      const agent = await resolveAgent({ agentId: agentId!, accountSlug: slug });
      const before = await listSponsors(agent.id);
      const sponsors = changing ? await changeSponsors(agent.accountId, agent.id, change) : before;
      const changed = changing ? sponsors.join("\n") !== before.join("\n") : undefined;
      return {
        json: {
          agent: {
            id: agent.agentId,
            account: agent.accountSlug,
            sponsors,
            ...(changed === undefined ? {} : { changed }),
          },
        },
        text:
          `${changed === false ? "unchanged: " : ""}${agent.agentId} (${agent.accountSlug}) ` +
          (sponsors.length > 0 ? `is sponsored by ${sponsors.join(", ")}` : "has no sponsors"),
      };
    },
  },
};

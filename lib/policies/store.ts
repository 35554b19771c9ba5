/**
 * An account's approval policy as stored (docs/policies.md): read, exported as a policy file, and
 * applied — a whole file at once, checked against the account's people and groups, in one
 * transaction under the account's lock with one `policy.applied` audit row carrying the diff (and
 * the `group.*` rows of the groups the file keeps). Owners and the operator apply; admins read.
 * A change applies to asks submitted after it commits; open asks keep the routing recorded at their
 * submit (lib/policies/routing.ts).
 */
import { selectAccountPolicy } from "./store.sql";
import { Prisma } from "../generated/prisma/client";
import { clock } from "../clock";
import { db, type Tx } from "../db";
import { HubError } from "@ma2h/protocol/errors";
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit } from "../audit/write";
import { addGroupMembers, createGroup, removeGroupMembers } from "../groups/groups";
import { actorOf, requireOwnerFor, type AdminOptions } from "../principals/admin-scope";
import { lockAccount } from "../principals/seat-locks";
import {
  DEFAULT_STANDING_RULES,
  type PolicyFile,
  POLICY_VERSION,
  type Rule,
  RulesSchema,
  type StandingRulesSettings,
  StandingRulesSettingsSchema,
} from "./model";

export interface StoredPolicy {
  /** 0 for an account that never applied one (the default policy). */
  revision: number;
  updatedAt: Date | null;
  updatedBy: string | null;
  rules: Rule[];
  /** The file's `standing_rules`, when it set them (null: the defaults). */
  standingRules: StandingRulesSettings | null;
}

/** The account's rules, as last applied ([] — the default policy — when none was). */
export async function readPolicy(accountId: string, q?: Tx): Promise<StoredPolicy> {
  // Outside a transaction (every ask's submit) one statement on the pool, not a client query.
  const row = q ? await q.accountPolicy.findUnique({ where: { accountId } }) : await selectAccountPolicy(accountId);
  if (!row) return { revision: 0, updatedAt: null, updatedBy: null, rules: [], standingRules: null };
  // Validated on the way in; parsed again so a row edited by hand cannot reach the evaluation unchecked.
  return {
    revision: row.revision,
    updatedAt: row.updatedAt,
    updatedBy: row.updatedBy,
    rules: RulesSchema.parse(row.rules),
    standingRules: row.standingRules === null ? null : StandingRulesSettingsSchema.parse(row.standingRules),
  };
}

/** The account's standing-rule settings: the policy file's, or the defaults. */
export async function standingRulesSettings(accountId: string, q?: Tx): Promise<StandingRulesSettings> {
  return (await readPolicy(accountId, q)).standingRules ?? DEFAULT_STANDING_RULES;
}

/** The policy file that reproduces the account's policy and hand-kept groups (apply it: no change). */
export async function exportPolicy(accountId: string): Promise<PolicyFile> {
  const [policy, groups] = await Promise.all([
    readPolicy(accountId),
    db().accountGroup.findMany({
      where: { accountId },
      select: {
        name: true,
        members: { where: { source: "manual" }, select: { membership: { select: { handle: true } } } },
      },
      orderBy: { name: "asc" },
    }),
  ]);
  return {
    version: POLICY_VERSION,
    groups: Object.fromEntries(
      groups.map((g) => [g.name, g.members.map((m) => `human:${m.membership.handle}`).sort()]),
    ),
    rules: policy.rules,
    ...(policy.standingRules === null ? {} : { standing_rules: policy.standingRules }),
  };
}

/** A problem with a policy file, at its path in the file (lib/policies/yaml.ts maps it to a line). */
export interface PolicyProblem {
  path: Array<string | number>;
  message: string;
}

export function policyRefused(problems: PolicyProblem[]): HubError {
  const first = problems[0];
  const where = first?.path.length ? ` at ${first.path.join(".")}` : "";
  return new HubError("invalid_field", `the policy was not applied: ${first?.message ?? "invalid"}${where}`, {
    extra: { problems },
  });
}

export interface PolicyDiff {
  rules: { added: string[]; removed: string[]; changed: string[] };
  /** The `standing_rules` settings before and after, when they change. */
  standing_rules?: { from: StandingRulesSettings | null; to: StandingRulesSettings | null };
  groups: {
    created: string[];
    added: Array<{ group: string; person: string }>;
    removed: Array<{ group: string; person: string }>;
  };
}

export interface ApplyResult {
  /** Whether anything changed (a dry run: would change). */
  changed: boolean;
  diff: PolicyDiff;
  /** The revision after the apply (a dry run or no change: the current one). */
  revision: number;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Applies a whole policy file (already parsed by PolicyFileSchema): the groups it lists get exactly
 * those people by hand (created when new; groups it does not list, and the identity provider's
 * members, are left alone), and its rules replace the account's. Every person and group it names
 * must exist (a group may be one the file creates); otherwise nothing changes and every problem is
 * reported with its path. `dryRun` reports the diff and changes nothing.
 */
export async function applyPolicy(
  accountId: string,
  file: PolicyFile,
  opts?: AdminOptions,
  { dryRun = false }: { dryRun?: boolean } = {},
): Promise<ApplyResult> {
  requireOwnerFor(opts, "apply the approval policy");
  const actor = actorOf(opts);
  const work = async (tx: Tx): Promise<ApplyResult> => {
    await lockAccount(tx, accountId);
    const [members, groups, current] = await Promise.all([
      tx.membership.findMany({ where: { accountId }, select: { handle: true } }),
      tx.accountGroup.findMany({
        where: { accountId },
        select: {
          name: true,
          members: { where: { source: "manual" }, select: { membership: { select: { handle: true } } } },
        },
      }),
      readPolicy(accountId, tx),
    ]);
    const people = new Set(members.map((m) => m.handle));
    const hubGroups = new Map(groups.map((g) => [g.name, new Set(g.members.map((m) => m.membership.handle))]));
    const fileGroups = file.groups ?? {};
    const problems: PolicyProblem[] = [];
    for (const [name, list] of Object.entries(fileGroups))
      list.forEach((ref, i) => {
        if (!people.has(ref.slice(6)))
          problems.push({ path: ["groups", name, i], message: `${ref} is not a member of this account` });
      });
    file.rules.forEach((rule, r) => {
      const from = rule.require_from;
      if (from !== undefined && !hubGroups.has(from) && !(from in fileGroups))
        problems.push({
          path: ["rules", r, "require_from"],
          message: `${from} is not a group of this account (nor one this file lists)`,
        });
      const named: Array<[string, Array<string | number>]> = [
        ...rule.assign.map((ref, i): [string, Array<string | number>] => [ref, ["rules", r, "assign", i]]),
        ...(rule.escalate_to === undefined
          ? []
          : [[rule.escalate_to, ["rules", r, "escalate_to"]] as [string, Array<string | number>]]),
      ];
      named.forEach(([ref, path]) => {
        if (ref.startsWith("human:") && !people.has(ref.slice(6)))
          problems.push({ path, message: `${ref} is not a member of this account` });
        if (ref.startsWith("group:") && !hubGroups.has(ref.slice(6)) && !(ref.slice(6) in fileGroups))
          problems.push({ path, message: `${ref} is not a group of this account (nor one this file lists)` });
      });
    });
    if (problems.length) throw policyRefused(problems);

    const diff: PolicyDiff = {
      rules: { added: [], removed: [], changed: [] },
      groups: { created: [], added: [], removed: [] },
    };
    const before = new Map(current.rules.map((r) => [r.name, r]));
    const after = new Map(file.rules.map((r) => [r.name, r]));
    for (const [name, r] of after)
      if (!before.has(name)) diff.rules.added.push(name);
      else if (!same(before.get(name), r)) diff.rules.changed.push(name);
    for (const name of before.keys()) if (!after.has(name)) diff.rules.removed.push(name);
    // Reordering alone changes nothing the evaluation sees but the order of recorded names: kept as a change.
    const reordered = !same([...before.keys()], [...after.keys()]);
    for (const [name, list] of Object.entries(fileGroups)) {
      const want = new Set(list.map((r) => r.slice(6)));
      const have = hubGroups.get(name);
      if (!have) diff.groups.created.push(name);
      for (const h of want) if (!have?.has(h)) diff.groups.added.push({ group: name, person: `human:${h}` });
      for (const h of have ?? []) if (!want.has(h)) diff.groups.removed.push({ group: name, person: `human:${h}` });
    }
    const settingsAfter = file.standing_rules ?? null;
    if (!same(current.standingRules, settingsAfter))
      diff.standing_rules = { from: current.standingRules, to: settingsAfter };
    const changed =
      reordered ||
      diff.standing_rules !== undefined ||
      Object.values(diff.rules).some((l) => l.length > 0) ||
      Object.values(diff.groups).some((l) => l.length > 0);
    if (dryRun || !changed) return { changed, diff, revision: current.revision };

    for (const name of diff.groups.created) await createGroup(accountId, name, undefined, opts, tx);
    for (const [name] of Object.entries(fileGroups)) {
      const add = diff.groups.added.filter((a) => a.group === name).map((a) => a.person);
      const remove = diff.groups.removed.filter((a) => a.group === name).map((a) => a.person);
      if (add.length) await addGroupMembers(accountId, name, add, opts, tx);
      if (remove.length) await removeGroupMembers(accountId, name, remove, opts, tx);
    }
    const revision = current.revision + 1;
    const now = clock.now();
    const rules = file.rules as unknown as Prisma.InputJsonValue;
    const standingRules = settingsAfter === null ? Prisma.DbNull : (settingsAfter as Prisma.InputJsonValue);
    await tx.accountPolicy.upsert({
      where: { accountId },
      create: { accountId, rules, standingRules, revision, updatedAt: now, updatedBy: actor },
      update: { rules, standingRules, revision, updatedAt: now, updatedBy: actor },
    });
    await writeAudit(tx, {
      accountId,
      actor,
      event: AUDIT_EVENT.policyApplied,
      detail: { revision, ...diff } as unknown as Prisma.InputJsonValue,
      at: now,
    });
    return { changed, diff, revision };
  };
  return db().$transaction(work);
}

/**
 * The approval routing of a new ask or task (docs/policies.md): at submit, the account's policy is
 * evaluated (lib/policies/evaluate.ts) and, when a rule matches, the rules and the people they leave
 * eligible are recorded on the message — so later policy or group edits change nothing for it. An
 * ask no one may answer is refused `422` naming the rules, and nothing is stored (§5.2 v0.6's
 * principle: refuse where the agent can fix it). Resolve, the inbox and the notifications read the
 * recorded routing back with `routingOf`.
 */
import { db, type Tx } from "../db";
import { HubError } from "@ma2h/protocol/errors";
import type { Message } from "@ma2h/protocol/message";
import type { Role } from "../principals/types";
import { sponsorHandles } from "../principals/sponsors";
import {
  type AskFacts,
  type Directory,
  evaluatePolicy,
  excludesSponsors,
  factsOf,
  groupsNamed,
  type Routing,
} from "./evaluate";
import type { Rule } from "./model";
import { readPolicy } from "./store";

/** The account's people and the members of the named groups. */
export async function directoryFor(accountId: string, groupNames: readonly string[], q: Tx = db()): Promise<Directory> {
  const [members, groups] = await Promise.all([
    q.membership.findMany({ where: { accountId }, select: { handle: true, role: true } }),
    groupNames.length === 0
      ? Promise.resolve([])
      : q.accountGroup.findMany({
          where: { accountId, name: { in: [...groupNames] } },
          select: { name: true, members: { select: { membership: { select: { handle: true } } } } },
        }),
  ]);
  return {
    members: members
      .map((m) => ({ handle: m.handle, role: m.role as Role }))
      .sort((a, b) => a.handle.localeCompare(b.handle)),
    groups: new Map(groups.map((g) => [g.name, g.members.map((m) => m.membership.handle)])),
  };
}

/**
 * The people the agent's sponsors stand for, by its attested id in the account ([] for an id that is
 * no agent of the account, as a pasted envelope's may be).
 */
async function sponsorsOf(accountId: string, agentId: string, q: Tx): Promise<string[]> {
  const agent = await q.agent.findFirst({ where: { accountId, agentId }, select: { id: true } });
  return agent ? sponsorHandles(agent.id, q) : [];
}

/** The evaluation of the account's policy (or of `rules`) for these facts: the tester's and the submit's. */
export async function evaluateForAccount(accountId: string, facts: AskFacts, rules?: readonly Rule[], tx?: Tx) {
  const policy = rules ?? (await readPolicy(accountId, tx)).rules;
  const q = tx ?? db();
  const [directory, sponsors] = await Promise.all([
    directoryFor(accountId, groupsNamed(policy), q),
    excludesSponsors(policy) ? sponsorsOf(accountId, facts.agentId, q) : Promise.resolve(undefined),
  ]);
  return evaluatePolicy(policy, facts, sponsors === undefined ? directory : { ...directory, sponsors });
}

/**
 * The routing to record on a new message, or null (the default policy, or a message policies do not
 * govern: a notify, an addressed message). Throws `422 invalid_field` when the matching rules leave
 * nobody who may answer.
 */
export async function routeAtSubmit(
  accountId: string,
  attestedAgentId: string,
  message: Message,
  tx?: Tx,
): Promise<Routing | null> {
  const facts = factsOf(message, attestedAgentId);
  if (facts === null) return null;
  const { rules } = await readPolicy(accountId, tx);
  if (rules.length === 0) return null;
  const { routing, refusal } = await evaluateForAccount(accountId, facts, rules, tx);
  if (routing !== null && routing.eligible.length === 0) {
    const names = routing.rules.join(", ");
    throw new HubError(
      "invalid_field",
      `no one may answer this ${message.type} under the account's approval policy (rule${routing.rules.length > 1 ? "s" : ""} ${names}); check allowed_resolvers, or ask the account's owners`,
    );
  }
  // Too few eligible for the quorum (docs/policies.md "Quorum"): an ask that could never complete.
  if (refusal !== null)
    throw new HubError("invalid_field", `${refusal}; check allowed_resolvers, or ask the account's owners`);
  return routing;
}

/** The routing recorded on a message row (null: the default policy). */
export function routingOf(row: { routing: string | null }): Routing | null {
  return row.routing === null ? null : (JSON.parse(row.routing) as Routing);
}

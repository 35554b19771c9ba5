/**
 * The policy tester of the admin page (docs/admin.md "Policy"): an ask or task — pasted as a message
 * envelope, or one the account's agents submitted — evaluated against the applied policy or a draft's
 * rules by `evaluateForAccount`, the function the submit uses (lib/policies/routing.ts), so what the
 * tester shows is what a submit would record. For a stored ask it also gives the routing recorded at
 * its submit, which later policy edits do not change.
 */
import { HubError } from "@ma2h/protocol/errors";
import { type Message, parseMessage } from "@ma2h/protocol/message";
import { db } from "../db";
import { limits } from "../env";
import type { AskFacts, Exclusion, Routing } from "./evaluate";
import { factsOf } from "./evaluate";
import type { Rule } from "./model";
import { directoryFor, evaluateForAccount, routingOf } from "./routing";

/** How many of the account's asks and tasks the tester offers. */
export const RECENT_ASKS = 50;

export interface RecentAsk {
  id: string;
  type: string;
  title: string;
  agentId: string;
  createdAt: Date;
}

/** The account's latest human-inbox asks and tasks (no `to`: the ones policies govern), newest first. */
export async function recentAsks(accountId: string, take = RECENT_ASKS): Promise<RecentAsk[]> {
  const rows = await db().message.findMany({
    where: { accountId, toAddress: null, type: { in: ["ask", "task"] } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take,
    select: { id: true, type: true, title: true, createdAt: true, agent: { select: { agentId: true } } },
  });
  return rows.map((r) => ({
    id: r.id,
    type: r.type,
    title: r.title,
    agentId: r.agent.agentId,
    createdAt: r.createdAt,
  }));
}

/** The ask to test: a pasted envelope (JSON text) or the id of one of the account's messages. */
export type AskSource = { kind: "json"; text: string } | { kind: "stored"; id: string };

export interface PolicyTest {
  ask: { type: string; title: string; agentId: string; id?: string; createdAt?: Date };
  /** Whether the agent is one of the account's (a pasted envelope may name any id). */
  agentKnown: boolean;
  facts: AskFacts;
  /** The matching rules, in the policy's order; none: the default policy. */
  matched: Rule[];
  /** What a submit would record now (null: the default policy, nothing recorded). */
  routing: Routing | null;
  /** The people who may answer: the routing's, or under the default policy every member not excluded. */
  eligible: string[];
  excluded: Exclusion[];
  /** Why a submit would be refused `422` for its quorum (too few eligible), or null. */
  refusal: string | null;
  /** A stored ask's routing as recorded at its submit (null: the default policy); absent for a pasted one. */
  recorded?: Routing | null;
}

async function askOf(accountId: string, source: AskSource) {
  if (source.kind === "stored") {
    // Looked up within the account: another account's id is "not found", as an unknown one.
    const row = await db().message.findFirst({
      where: { id: source.id, accountId, toAddress: null, type: { in: ["ask", "task"] } },
      select: {
        id: true,
        envelope: true,
        routing: true,
        title: true,
        type: true,
        createdAt: true,
        agent: { select: { agentId: true } },
      },
    });
    if (!row) throw new HubError("not_found", "no such ask or task in this account");
    return {
      // Stored as received (lib/messages/submit.ts), after the schema checked it.
      message: JSON.parse(row.envelope) as Message,
      // The agent id its key attested at submit, not what the envelope says.
      agentId: row.agent.agentId,
      ask: { id: row.id, type: row.type, title: row.title, agentId: row.agent.agentId, createdAt: row.createdAt },
      recorded: routingOf(row),
    };
  }
  const max = limits().maxBodyBytes;
  if (Buffer.byteLength(source.text, "utf8") > max)
    throw new HubError("validation_error", `the pasted message is larger than a submit may be (${max} bytes)`);
  let body: unknown;
  try {
    body = JSON.parse(source.text);
  } catch (err) {
    throw new HubError("validation_error", `the pasted message is not JSON: ${(err as Error).message}`);
  }
  const message = parseMessage(body);
  // A submit is refused unless agent.id is the key's own (§8.1), so the envelope's id is what the key
  // would attest.
  return {
    message,
    agentId: message.agent.id,
    ask: { type: message.type, title: message.title, agentId: message.agent.id },
    recorded: undefined,
  };
}

/**
 * Evaluates one ask against the account's applied policy, or against `rules` (a draft's). Throws
 * `validation_error` for a pasted message that is not a valid envelope, `not_found` for an id that is
 * not one of the account's asks or tasks, `invalid_field` for a message policies do not govern.
 */
export async function testPolicy(accountId: string, source: AskSource, rules?: readonly Rule[]): Promise<PolicyTest> {
  const { message, agentId, ask, recorded } = await askOf(accountId, source);
  const facts = factsOf(message, agentId);
  if (facts === null)
    throw new HubError(
      "invalid_field",
      message.type === "notify"
        ? "a notify asks nobody: approval policies govern asks and tasks"
        : `this ${message.type} is addressed to ${message.to}: approval policies govern the human inbox's asks and tasks only`,
    );
  const [evaluation, agent] = await Promise.all([
    evaluateForAccount(accountId, facts, rules),
    recorded !== undefined
      ? Promise.resolve({ id: "stored" })
      : db().agent.findFirst({ where: { accountId, agentId }, select: { id: true } }),
  ]);
  let eligible = evaluation.routing?.eligible;
  if (eligible === undefined) {
    // The default policy records nothing; who may answer is every member the evaluation did not exclude.
    const out = new Set(evaluation.excluded.map((e) => e.handle));
    eligible = (await directoryFor(accountId, [])).members.map((m) => m.handle).filter((h) => !out.has(h));
  }
  return {
    ask,
    agentKnown: agent !== null,
    facts,
    matched: evaluation.matched,
    routing: evaluation.routing,
    eligible,
    excluded: evaluation.excluded,
    refusal: evaluation.refusal,
    ...(recorded !== undefined ? { recorded } : {}),
  };
}

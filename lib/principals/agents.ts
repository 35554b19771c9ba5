/**
 * Agents (issue #2 item 2): `agent.id` is unique per account and may contain `/`
 * (`deploybot/dev-team`). An `AgentRef` names one by id, with the account slug required only when
 * the id exists in more than one account.
 */
import { db, type Tx } from "../db";
import { clock } from "../clock";
import { HubError } from "../protocol/errors";
import { mintId } from "../protocol/ids";
import { findAccount } from "./accounts";
import { actorOf, audit, uniquely, type AdminOptions } from "./admin";
import { mintApiKey } from "./credentials";
import { hashCredential } from "../secrets";

export interface AgentRef {
  agentId: string;
  accountSlug?: string;
}

export interface AgentRow {
  /** Internal row id. */
  id: string;
  /** The wire `agent.id`. */
  agentId: string;
  accountId: string;
  accountSlug: string;
}

// The message schema only asks for a non-empty string; we also refuse whitespace and control characters.
const AGENT_ID_PATTERN = /^[^\s\p{Cc}]{1,200}$/u;

export function validateAgentId(agentId: string): string {
  if (!AGENT_ID_PATTERN.test(agentId)) {
    throw new HubError("invalid_field", `agent id ${JSON.stringify(agentId)} is invalid: 1-200 characters, no whitespace`);
  }
  return agentId;
}

/** Inserts a fresh key for an agent row inside `tx`; returns its id and the one-time plaintext. */
export async function issueKey(tx: Tx, agentRowId: string): Promise<{ id: string; apiKey: string }> {
  const apiKey = mintApiKey();
  const id = mintId("apiKey");
  await tx.apiKey.create({ data: { id, agentRowId, keyHash: hashCredential(apiKey), createdAt: clock.now() } });
  return { id, apiKey };
}

/** Provisions an agent with its first API key; the key's plaintext is returned once. */
export async function createAgent(
  agentId: string,
  accountSlug: string,
  opts?: AdminOptions,
): Promise<{ agent: AgentRow; key: { id: string }; api_key: string }> {
  validateAgentId(agentId);
  const account = await findAccount(accountSlug);
  const id = mintId("agent");
  return uniquely(`agent ${agentId} already exists in account ${accountSlug}`, () =>
    db().$transaction(async (tx) => {
      await tx.agent.create({ data: { id, accountId: account.id, agentId, createdAt: clock.now() } });
      const key = await issueKey(tx, id);
      await audit(tx, {
        accountId: account.id,
        actor: actorOf(opts),
        event: "agent.created",
        detail: { agent_row_id: id, agent_id: agentId, key_id: key.id },
      });
      return {
        agent: { id, agentId, accountId: account.id, accountSlug },
        key: { id: key.id },
        api_key: key.apiKey,
      };
    }),
  );
}

/** Finds the agent `ref` names: `404` when unknown, `422` when the id is ambiguous across accounts. */
export async function resolveAgent(ref: AgentRef): Promise<AgentRow> {
  const where = ref.accountSlug
    ? { agentId: ref.agentId, account: { slug: ref.accountSlug } }
    : { agentId: ref.agentId };
  const rows = await db().agent.findMany({
    where,
    select: { id: true, agentId: true, accountId: true, account: { select: { slug: true } } },
    take: 10,
  });
  const scope = ref.accountSlug ? ` in account ${ref.accountSlug}` : "";
  const [first] = rows;
  if (!first) throw new HubError("not_found", `agent ${ref.agentId} not found${scope}`);
  if (rows.length > 1) {
    const slugs = rows.map((r) => r.account.slug).sort().join(", ");
    throw new HubError("invalid_field", `agent ${ref.agentId} exists in several accounts (${slugs}); pass --account <slug>`);
  }
  return { id: first.id, agentId: first.agentId, accountId: first.accountId, accountSlug: first.account.slug };
}

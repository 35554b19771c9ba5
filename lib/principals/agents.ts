/**
 * Agents: `agent.id` is unique per account and may contain `/`
 * (`deploybot/dev-team`). An `AgentRef` names one by id, with the account slug required only when
 * the id exists in more than one account.
 */
import { db, type Tx } from "../db";
import { clock } from "../clock";
import { HubError } from "@ma2h/protocol/errors";
import { mintId } from "@ma2h/protocol/ids";
import { findAccount } from "./accounts";
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit } from "../audit/write";
import { uniquely } from "../db-errors";
import { actorOf, type AdminOptions } from "./admin-scope";
import { mintApiKey } from "./credentials";
import { hashCredential } from "../secrets";
import { changeSponsors, sponsorCreator } from "./sponsors";
import type { AgentRow } from "./agent-ref";

// Naming and resolving an agent live in ./agent-ref.ts (no Prisma client: the CLI's listings use it).
export { resolveAgent, type AgentRef, type AgentRow } from "./agent-ref";

// The message schema only asks for a non-empty string; we also refuse whitespace and control characters.
const AGENT_ID_PATTERN = /^[^\s\p{Cc}]{1,200}$/u;

export function validateAgentId(agentId: string): string {
  if (!AGENT_ID_PATTERN.test(agentId)) {
    throw new HubError(
      "invalid_field",
      `agent id ${JSON.stringify(agentId)} is invalid: 1-200 characters, no whitespace`,
    );
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
  sponsors?: readonly string[],
): Promise<{ agent: AgentRow; key: { id: string }; api_key: string; sponsors: string[] }> {
  validateAgentId(agentId);
  const account = await findAccount(accountSlug);
  const id = mintId("agent");
  return uniquely(`agent ${agentId} already exists in account ${accountSlug}`, () =>
    db().$transaction(async (tx) => {
      await tx.agent.create({ data: { id, accountId: account.id, agentId, createdAt: clock.now() } });
      const key = await issueKey(tx, id);
      // The person who creates an agent is its first sponsor (lib/principals/sponsors.ts); sponsors
      // named at creation (the CLI's --sponsor) are added in the same transaction, so a refused one
      // leaves no agent behind whose one-time key was never shown.
      const creator = await sponsorCreator(tx, account.id, id, actorOf(opts));
      await writeAudit(tx, {
        accountId: account.id,
        actor: actorOf(opts),
        event: AUDIT_EVENT.agentCreated,
        detail: { agent_row_id: id, agent_id: agentId, key_id: key.id, sponsors: creator },
      });
      const sponsorsAfter = sponsors?.length
        ? await changeSponsors(account.id, id, { add: sponsors }, { ...opts, role: undefined }, tx)
        : creator;
      return {
        agent: { id, agentId, accountId: account.id, accountSlug },
        key: { id: key.id },
        api_key: key.apiKey,
        sponsors: sponsorsAfter,
      };
    }),
  );
}

export interface AgentSummary {
  /** Internal row id (the admin pages' URL id: `agent.id` may contain `/`). */
  id: string;
  agentId: string;
  createdAt: Date;
  activeKeys: number;
  /**
   * Last activity: the later of the agent's §15.1 presence stamp (`last_seen_at`) and its keys'
   * last authenticated use — either alone misses a submit-only or a poll-only agent.
   */
  lastActivityAt: Date | null;
}

function later(a: Date | null, b: Date | null): Date | null {
  if (!a) return b;
  if (!b) return a;
  return a.getTime() >= b.getTime() ? a : b;
}

/** The account's agents by `agent.id`, with their active key count and last activity. */
export async function listAgents(accountId: string): Promise<AgentSummary[]> {
  const rows = await db().agent.findMany({
    where: { accountId },
    select: {
      id: true,
      agentId: true,
      createdAt: true,
      lastSeenAt: true,
      apiKeys: { select: { revokedAt: true, lastUsedAt: true } },
    },
    orderBy: [{ agentId: "asc" }],
  });
  return rows.map((r) => ({
    id: r.id,
    agentId: r.agentId,
    createdAt: r.createdAt,
    activeKeys: r.apiKeys.filter((k) => k.revokedAt === null).length,
    lastActivityAt: r.apiKeys.reduce<Date | null>((acc, k) => later(acc, k.lastUsedAt), r.lastSeenAt),
  }));
}

/** The agent row `agentRowId` of `accountId`, or `404` — another account's agent is unknown (§9.1). */
export async function agentInAccount(accountId: string, agentRowId: string): Promise<AgentRow> {
  const row = await db().agent.findFirst({
    where: { id: agentRowId, accountId },
    select: { id: true, agentId: true, accountId: true, account: { select: { slug: true } } },
  });
  if (!row) throw new HubError("not_found", `agent ${agentRowId} not found`);
  return { id: row.id, agentId: row.agentId, accountId: row.accountId, accountSlug: row.account.slug };
}

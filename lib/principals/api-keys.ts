/**
 * Agent API keys (§9.1): several per agent so a key can be rotated — a new one is
 * added and the old stays valid until revoked. Only `hashCredential(key)` is stored.
 */
import { db } from "../db";
import { clock } from "../clock";
import { HubError } from "@ma2h/protocol/errors";
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit } from "../audit/write";
import { actorOf, inScope, type AdminOptions } from "./admin-scope";
import { issueKey, resolveAgent, type AgentRef } from "./agents";
import { announceCredentialChange, credentialTransaction } from "./credential-cache";

// Listing them is ./key-list.ts: a read on the pool that loads no Prisma client (`ma2h-hub key list`).
export { type KeyInfo, listKeys } from "./key-list";

/** Adds a key to the agent; existing keys stay valid until revoked. */
export async function rotateKey(ref: AgentRef, opts?: AdminOptions): Promise<{ key: { id: string }; api_key: string }> {
  const agent = await resolveAgent(ref);
  return db().$transaction(async (tx) => {
    const key = await issueKey(tx, agent.id);
    await writeAudit(tx, {
      accountId: agent.accountId,
      actor: actorOf(opts),
      event: AUDIT_EVENT.keyRotated,
      detail: { agent_id: agent.agentId, key_id: key.id },
    });
    return { key: { id: key.id }, api_key: key.apiKey };
  });
}

/**
 * Revokes a key at once — in every process's credential cache too (credential-cache.ts). Revoking it again is a no-op; an unknown id — or, with `opts.accountId`,
 * another account's key — is `404`.
 */
export async function revokeKey(keyId: string, opts?: AdminOptions): Promise<{ id: string; revoked: true }> {
  await credentialTransaction(async (tx) => {
    const where = { id: keyId, agent: inScope(opts) };
    const { count } = await tx.apiKey.updateMany({
      where: { ...where, revokedAt: null },
      data: { revokedAt: clock.now() },
    });
    const row = await tx.apiKey.findFirst({
      where,
      select: { agent: { select: { accountId: true, agentId: true } } },
    });
    if (!row) throw new HubError("not_found", `key ${keyId} not found`);
    if (count > 0) {
      await announceCredentialChange(tx, { kind: "key", id: keyId });
      await writeAudit(tx, {
        accountId: row.agent.accountId,
        actor: actorOf(opts),
        event: AUDIT_EVENT.keyRevoked,
        detail: { agent_id: row.agent.agentId, key_id: keyId },
      });
    }
  });
  return { id: keyId, revoked: true };
}

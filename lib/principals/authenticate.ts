/**
 * Who is calling (§9.1). Agents and operators present a bearer credential the same
 * way — `Authorization: Bearer <token>` or `X-API-Key: <token>`; its prefix says which table to look
 * in. Each is looked up by its SHA-256 (unique index) and compared in constant time; revoked or
 * unknown credentials are `401 unauthenticated`, indistinguishably. A credential that authenticated
 * is remembered by this process for a few seconds (credential-cache.ts) unless revoked meanwhile.
 */
import { db } from "../db";
import { clock } from "../clock";
import { log } from "../log";
import { HubError } from "@ma2h/protocol/errors";
import { credentialsEqual, hashCredential } from "../secrets";
import { readAgentKey } from "./authenticate.sql";
import { type CachedCredential, credentialCache } from "./credential-cache";
import { credentialKind } from "./credentials";
import type { AgentPrincipal, OperatorPrincipal, Principal } from "./types";

const TOUCH_INTERVAL_MS = 60_000;

/** The presented credential, or null when none is presented in a recognised form. */
export function presentedCredential(headers: Headers): string | null {
  const authorization = headers.get("authorization");
  if (authorization !== null) {
    const m = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(authorization.trim());
    return m?.[1] ?? null;
  }
  const apiKey = headers.get("x-api-key")?.trim();
  return apiKey ? apiKey : null;
}

function rejected(message = "invalid or revoked credential"): HubError {
  return new HubError("unauthenticated", message);
}

/**
 * Records use at most once a minute, without waiting for or failing on the write. The cached
 * credential remembers the stamp, so a cache hit within the minute writes nothing.
 */
function touch(table: "apiKey" | "personalAccessToken", id: string, found: CachedCredential): void {
  const now = clock.now();
  const lastUsedAt = found.lastUsedAt;
  if (lastUsedAt && now.getTime() - lastUsedAt.getTime() < TOUCH_INTERVAL_MS) return;
  found.lastUsedAt = now;
  const stale = new Date(now.getTime() - TOUCH_INTERVAL_MS);
  const args = {
    where: { id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: stale } }] },
    data: { lastUsedAt: now },
  };
  const write = table === "apiKey" ? db().apiKey.updateMany(args) : db().personalAccessToken.updateMany(args);
  write.catch((err: unknown) => log.warn("credential last-used update failed", { table, id, error: err as Error }));
}

/**
 * The key's agent, through the process's credential cache (credential-cache.ts: a few seconds, and
 * a revocation, here or in any process, drops it at once). Only what the key *is* comes from the
 * cache; anything an operator can switch off per agent or per session must be read per request.
 */
async function agentFor(token: string): Promise<AgentPrincipal> {
  const hash = hashCredential(token);
  const found = await credentialCache().resolve(hash, async () => {
    // On a miss: one round trip with the agent joined in (./authenticate.sql.ts).
    const row = await readAgentKey(hash);
    if (!row || !credentialsEqual(row.key_hash, hash) || row.revoked_at) throw rejected();
    const principal: AgentPrincipal = {
      kind: "agent",
      agentRowId: row.agent_row_id,
      agentId: row.agent_id,
      accountId: row.account_id,
      keyId: row.id,
    };
    return { principal, lastUsedAt: row.last_used_at };
  });
  const principal = found.principal;
  if (principal.kind !== "agent") throw rejected(); // a key's hash is never a PAT's; kept honest anyway
  touch("apiKey", principal.keyId, found);
  return { ...principal };
}

/** The PAT's person, through the same cache as agent keys. */
async function operatorFor(token: string): Promise<OperatorPrincipal> {
  const hash = hashCredential(token);
  const found = await credentialCache().resolve(hash, async () => {
    const row = await db().personalAccessToken.findUnique({
      where: { tokenHash: hash },
      select: { id: true, tokenHash: true, revokedAt: true, lastUsedAt: true, userId: true },
    });
    if (!row || !credentialsEqual(row.tokenHash, hash) || row.revokedAt) throw rejected();
    const principal: OperatorPrincipal = { kind: "operator", userId: row.userId, tokenId: row.id };
    return { principal, lastUsedAt: row.lastUsedAt };
  });
  const principal = found.principal;
  if (principal.kind !== "operator") throw rejected();
  touch("personalAccessToken", principal.tokenId, found);
  return { ...principal };
}

/** Resolves the request's principal or throws `401 unauthenticated`. */
export async function authenticate(headers: Headers): Promise<Principal> {
  const token = presentedCredential(headers);
  if (!token) throw rejected("missing credential: send Authorization: Bearer <token> or X-API-Key: <token>");
  switch (credentialKind(token)) {
    case "api_key":
      return agentFor(token);
    case "pat":
      return operatorFor(token);
    default:
      throw rejected();
  }
}

/** Narrows to an agent: a PAT is not an agent credential — `401`. */
export function requireAgent(p: Principal): AgentPrincipal {
  if (p.kind !== "agent") throw new HubError("unauthenticated", "an operator token is not an agent credential");
  return p;
}

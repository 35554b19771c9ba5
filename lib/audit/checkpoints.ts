/**
 * Signed checkpoints of the audit chain. The SHA-256 chain (./chain.ts) shows a row was changed only
 * to someone who cannot re-chain the rows after it; the table's owner can. So after each sealing
 * batch the sealer (./seal.ts) signs the stream's new head — `(stream, seq, hash)`, the context of
 * chain.ts's `checkpointContext` — with an ed25519 key, in the batch's own transaction. The key's
 * private half is sealed with lib/secrets (AES-256-GCM under HKDF of AUTH_SECRET or
 * MA2H_SECRETS_KEY, bound to its kid) like the push keys', so the database alone cannot sign; its
 * public half is published at `/.well-known/ma2h-audit-keys`, so anyone verifies an export without
 * the database. A key the Hub publishes or verifies with is one whose sealed private half opens and
 * derives that public half: a key row written into the table by hand is neither.
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { clock } from "../clock";
import { db, type Tx } from "../db";
import { processWide } from "../process-wide";
import { ed25519KeyPair, type Ed25519Jwk, jwkFromEd25519, kidFor, signContext } from "@ma2h/protocol/signing";
import { openSecret, sealSecret } from "../secrets";
import { sealContext } from "../sealed/catalogue";
import { checkpointContext, type CheckpointKeys } from "./chain";
import { lockAuditKeyCreation, readAuditOwnership } from "./checkpoints.sql";

const CACHE_MS = 5_000;

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
const unb64 = (text: string) => new Uint8Array(Buffer.from(text, "base64url"));

interface ActiveAuditKey {
  kid: string;
  privateKey: Uint8Array;
}

/** The opened key and when, once per process (lib/process-wide.ts). */
const opened = () =>
  processWide("ma2h.audit-key", () => ({ cached: null as { key: ActiveAuditKey; at: number } | null }));

/** The key of a row, if its sealed private half opens under this process's secret and derives its public half. */
function openKey(r: { kid: string; publicKey: string; sealedPrivateKey: string }): ActiveAuditKey | null {
  try {
    const privateKey = unb64(openSecret(r.sealedPrivateKey, sealContext("auditSigningKey", { kid: r.kid })));
    const pub = ed25519.getPublicKey(privateKey);
    return b64(pub) === r.publicKey && kidFor(pub) === r.kid ? { kid: r.kid, privateKey } : null;
  } catch {
    return null; // not sealed by this Hub: not a key it signs or vouches with
  }
}

/**
 * The newest unretired key the Hub generated itself; one is made (under a lock, so processes
 * starting together make one) when there is none. A row written into the table by hand is skipped,
 * never used: it cannot stop the sealer, nor sign for the Hub.
 */
async function activeAuditKey(): Promise<ActiveAuditKey> {
  const now = Date.now();
  const cached = opened().cached;
  if (cached && now - cached.at < CACHE_MS) return cached.key;
  const key = await db().$transaction(async (tx) => {
    const rows = await tx.auditSigningKey.findMany({ where: { retiredAt: null }, orderBy: { createdAt: "desc" } });
    for (const r of rows) {
      const k = openKey(r);
      if (k) return k;
    }
    await lockAuditKeyCreation(tx);
    const again = await tx.auditSigningKey.findMany({ where: { retiredAt: null }, orderBy: { createdAt: "desc" } });
    for (const r of again) {
      const k = openKey(r);
      if (k) return k;
    }
    const { privateKey, publicKey } = ed25519KeyPair();
    const kid = kidFor(publicKey);
    await tx.auditSigningKey.create({
      data: {
        kid,
        publicKey: b64(publicKey),
        sealedPrivateKey: sealSecret(b64(privateKey), sealContext("auditSigningKey", { kid })),
        createdAt: clock.now(),
      },
    });
    return { kid, privateKey };
  });
  opened().cached = { key, at: now };
  return key;
}

/** Makes sure an audit signing key exists; safe to call from every process at start. */
export async function ensureAuditKey(): Promise<void> {
  await activeAuditKey();
}

/** Signs the stream's head and records the checkpoint, inside the sealing transaction. */
export async function writeCheckpoint(tx: Tx, stream: string, head: { seq: number; hash: string }): Promise<void> {
  const key = await activeAuditKey();
  const signature = signContext(checkpointContext({ stream, ...head }), { alg: "ed25519", privateKey: key.privateKey });
  await tx.auditCheckpoint.create({
    data: { stream, seq: BigInt(head.seq), hash: head.hash, kid: key.kid, signature, at: clock.now() },
  });
}

/**
 * The keys the Hub generated itself: each row's sealed private half opens (under this process's
 * secret, bound to its kid) and derives the row's public half. Rows that do not are left out.
 */
export async function trustedAuditKeys(): Promise<CheckpointKeys> {
  const rows = await db().auditSigningKey.findMany({ orderBy: { createdAt: "asc" } });
  const keys: CheckpointKeys = new Map();
  for (const r of rows) if (openKey(r)) keys.set(r.kid, unb64(r.publicKey));
  return keys;
}

/** The `/.well-known/ma2h-audit-keys` document: every audit key the Hub generated, retired ones too. */
export async function publishedAuditKeys(): Promise<{ keys: Ed25519Jwk[] }> {
  const keys = await trustedAuditKeys();
  return { keys: [...keys].map(([kid, pub]) => jwkFromEd25519(pub, kid)) };
}

/**
 * Whether this connection's role can rewrite the audit trail: it owns `audit_events` (or is a member
 * of the owning role) or is a superuser. Such a role can switch the append-only trigger off and
 * re-chain rows; the checkpoints still catch it, but the documented default is a role that cannot
 * (docs/DEPLOYMENT.md, scripts/hub-role.sql).
 */
export async function runsAsAuditOwner(): Promise<boolean> {
  return readAuditOwnership();
}

/**
 * The Hub's ed25519 signing keys (§9.2 for non-hmac pushes; later §9.7/§9.8). The private key is
 * sealed at rest with lib/secrets (AES-256-GCM under HKDF of AUTH_SECRET or MA2H_SECRETS_KEY), the
 * same derivation web, worker and CLI share. The first key is created race-safely (an advisory
 * lock: web and worker starting together create one). Rotation adds a key that signs from then on;
 * the previous one stays published for the overlap so in-flight verifiers keep working.
 */
import { clock } from "../clock";
import { db } from "../db";
import { env } from "../env";
import { ed25519KeyPair, jwkFromEd25519, kidFor } from "../protocol/signing";
import { openSecret, sealSecret } from "../secrets";
import { sealContext } from "../sealed/catalogue";

const KEY_LOCK = 0x6d61326b; // "ma2k"
const CACHE_MS = 5_000;

export interface ActiveSigningKey {
  kid: string;
  privateKey: Uint8Array;
  publicKey: Uint8Array;
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
const unb64 = (text: string) => new Uint8Array(Buffer.from(text, "base64url"));

let cached: { key: ActiveSigningKey; at: number } | null = null;

const sealPrivateKey = (kid: string, privateKey: Uint8Array) =>
  sealSecret(b64(privateKey), sealContext("signingKey", { kid }));

/** Makes sure a signing key exists; safe to call from every process at start. */
export async function ensureSigningKey(): Promise<void> {
  await db().$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${KEY_LOCK})`;
    if ((await tx.signingKey.count()) > 0) return;
    const { privateKey, publicKey } = ed25519KeyPair();
    const kid = kidFor(publicKey);
    await tx.signingKey.create({
      data: {
        kid,
        publicKey: b64(publicKey),
        sealedPrivateKey: sealPrivateKey(kid, privateKey),
        createdAt: clock.now(),
      },
    });
  });
}

/** The newest key signs. */
export async function activeSigningKey(): Promise<ActiveSigningKey> {
  const now = Date.now();
  if (cached && now - cached.at < CACHE_MS) return cached.key;
  let row = await db().signingKey.findFirst({ where: { retiredAt: null }, orderBy: { createdAt: "desc" } });
  if (!row) {
    await ensureSigningKey();
    row = await db().signingKey.findFirstOrThrow({ where: { retiredAt: null }, orderBy: { createdAt: "desc" } });
  }
  // Bound to its kid (#19): another key's sealed half copied into this row does not open.
  const privateKey = unb64(openSecret(row.sealedPrivateKey, sealContext("signingKey", { kid: row.kid })));
  const key = { kid: row.kid, privateKey, publicKey: unb64(row.publicKey) };
  cached = { key, at: now };
  return key;
}

/** Adds a key that signs from now on; the previous ones retire but stay published for the overlap. */
export async function rotateSigningKey(): Promise<{ kid: string; createdAt: Date }> {
  const now = clock.now();
  return db().$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${KEY_LOCK})`;
    await tx.signingKey.updateMany({ where: { retiredAt: null }, data: { retiredAt: now } });
    const { privateKey, publicKey } = ed25519KeyPair();
    const kid = kidFor(publicKey);
    await tx.signingKey.create({
      data: { kid, publicKey: b64(publicKey), sealedPrivateKey: sealPrivateKey(kid, privateKey), createdAt: now },
    });
    cached = null;
    return { kid, createdAt: now };
  });
}

/** The `/.well-known/ma2h-keys` document: the active key and any retired within the overlap. */
export async function publishedKeys(): Promise<{ keys: ReturnType<typeof jwkFromEd25519>[] }> {
  const overlapMs = env().MA2H_SIGNING_KEY_OVERLAP_DAYS * 86_400_000;
  const since = new Date(clock.now().getTime() - overlapMs);
  const rows = await db().signingKey.findMany({
    where: { OR: [{ retiredAt: null }, { retiredAt: { gt: since } }] },
    orderBy: { createdAt: "desc" },
  });
  return { keys: rows.map((r) => jwkFromEd25519(unb64(r.publicKey), r.kid)) };
}

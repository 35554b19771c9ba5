/**
 * Secrets at rest and credential hashing — the one place either is done.
 *
 * Callback binding secrets (§9.4) are sealed with AES-256-GCM under a key derived by
 * HKDF-SHA256 from `AUTH_SECRET` (or `MA2H_SECRETS_KEY`). API keys and PATs are stored as SHA-256 and
 * compared in constant time (§9.1).
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import { env } from "./env";

const VERSION = "v1";
const HKDF_INFO = "ma2h-hub/secrets/v1";
// A fixed, public salt: the key material is the secret; the salt only separates this use of it.
const HKDF_SALT = "ma2h-hub/secrets/salt/2026-12";
const IV_BYTES = 12;
const TAG_BYTES = 16;

let cachedKey: { material: string; key: Buffer } | null = null;

function sealingKey(): Buffer {
  const material = env().secretsKeyMaterial;
  if (!material) {
    throw new Error(
      "AUTH_SECRET is not set: it is required to seal and open callback secrets (or set MA2H_SECRETS_KEY)",
    );
  }
  if (cachedKey?.material !== material) {
    cachedKey = { material, key: Buffer.from(hkdfSync("sha256", material, HKDF_SALT, HKDF_INFO, 32)) };
  }
  return cachedKey.key;
}

/** Seals `plaintext` as `v1.<iv>.<tag>.<ciphertext>` (base64url parts); the version is authenticated. */
export function sealSecret(plaintext: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", sealingKey(), iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(VERSION));
  const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, iv.toString("base64url"), tag.toString("base64url"), ct.toString("base64url")].join(".");
}

/** Opens a value made by `sealSecret`; throws if it was tampered with or sealed under another key. */
export function openSecret(sealed: string): string {
  const parts = sealed.split(".");
  if (parts.length !== 4 || parts[0] !== VERSION) throw new Error("sealed secret: unknown format");
  const [, ivB64, tagB64, ctB64] = parts as [string, string, string, string];
  const iv = Buffer.from(ivB64, "base64url");
  const tag = Buffer.from(tagB64, "base64url");
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new Error("sealed secret: malformed");
  const decipher = createDecipheriv("aes-256-gcm", sealingKey(), iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(VERSION));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(Buffer.from(ctB64, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    throw new Error("sealed secret: authentication failed (wrong key or tampered value)");
  }
}

/** SHA-256 hex of a bearer credential (API key or PAT); only this is stored (§9.1). */
export function hashCredential(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** Constant-time comparison of two credential hashes; unequal lengths are simply unequal. */
export function credentialsEqual(aHex: string, bHex: string): boolean {
  const a = Buffer.from(aHex, "utf8");
  const b = Buffer.from(bHex, "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}

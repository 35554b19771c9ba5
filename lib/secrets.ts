/**
 * Secrets at rest and credential hashing — the one place either is done.
 *
 * Sealed values (binding secrets §9.4, signing keys, Slack and VAPID keys, push subscription auth —
 * the list is lib/sealed/catalogue.ts) are AES-256-GCM under a key derived by HKDF-SHA256 from
 * `AUTH_SECRET` (or `MA2H_SECRETS_KEY`). The associated data names what a value is and
 * whose (a `SealContext`: purpose + the row's identifying fields), so a value copied into another row
 * or column fails to open. API keys and PATs are stored as SHA-256 and compared in constant time (§9.1).
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from "node:crypto";
import { env } from "./env";
import { processWide } from "./process-wide";

/** The current format: `v2.<iv>.<tag>.<ciphertext>`, associated data = version + context. */
const VERSION = "v2";
/** Format v1, the older one: the associated data was the version alone. Opened only by the re-seal. */
const LEGACY_VERSION = "v1";
const HKDF_INFO = "ma2h-hub/secrets/v1";
// A fixed, public salt: the key material is the secret; the salt only separates this use of it.
const HKDF_SALT = "ma2h-hub/secrets/salt/2026-12";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * What a sealed value is and whose: the purpose (a lib/sealed/catalogue.ts entry) and the values
 * of the columns that identify its row, in the catalogue's order. Built with `sealContext()`.
 */
export interface SealContext {
  purpose: string;
  row: ReadonlyArray<readonly [column: string, value: string]>;
}

/** A key derived from secret material; opaque to callers. */
export type SealKey = { readonly bytes: Buffer };

/** The sealing key for `material` (HKDF-SHA256, fixed public salt and info). */
export function deriveSealKey(material: string): SealKey {
  return { bytes: Buffer.from(hkdfSync("sha256", material, HKDF_SALT, HKDF_INFO, 32)) };
}

/** The key derived last, and from what: derived once per process, not once per copy of this module. */
const derived = () => processWide("ma2h.seal-key", () => ({ last: null as { material: string; key: SealKey } | null }));

/** The key every process seals and opens with: from MA2H_SECRETS_KEY, else AUTH_SECRET. */
export function currentSealKey(): SealKey {
  const material = env().secretsKeyMaterial;
  if (!material) {
    throw new Error(
      "AUTH_SECRET is not set: it is required to seal and open callback secrets (or set MA2H_SECRETS_KEY)",
    );
  }
  const slot = derived();
  if (slot.last?.material !== material) slot.last = { material, key: deriveSealKey(material) };
  return slot.last.key;
}

/** The associated data: an unambiguous encoding (JSON) of the version, purpose and row fields. */
function associatedData(ctx: SealContext): Buffer {
  return Buffer.from(JSON.stringify([VERSION, ctx.purpose, ...ctx.row.map(([c, v]) => [c, v])]), "utf8");
}

function encrypt(key: SealKey, version: string, aad: Buffer, plaintext: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key.bytes, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [version, iv.toString("base64url"), tag.toString("base64url"), ct.toString("base64url")].join(".");
}

function decrypt(key: SealKey, version: string, aad: Buffer, sealed: string): string {
  const parts = sealed.split(".");
  if (parts[0] === LEGACY_VERSION && version !== LEGACY_VERSION) {
    throw new Error("sealed secret: old format (v1), re-sealed when the Hub starts (the migration step)");
  }
  if (parts.length !== 4 || parts[0] !== version) throw new Error("sealed secret: unknown format");
  const [, ivB64, tagB64, ctB64] = parts as [string, string, string, string];
  const iv = Buffer.from(ivB64, "base64url");
  const tag = Buffer.from(tagB64, "base64url");
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new Error("sealed secret: malformed");
  const decipher = createDecipheriv("aes-256-gcm", key.bytes, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(Buffer.from(ctB64, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    throw new Error("sealed secret: authentication failed (wrong key, another row's value, or tampered)");
  }
}

/** Seals `plaintext` for the row and purpose `ctx` names; the version and context are authenticated. */
export function sealSecret(plaintext: string, ctx: SealContext, key: SealKey = currentSealKey()): string {
  return encrypt(key, VERSION, associatedData(ctx), plaintext);
}

/**
 * Opens a value sealed for exactly `ctx`; throws if it was tampered with, sealed under another key,
 * or sealed for another purpose or row (copied there). An old-format value never opens here.
 */
export function openSecret(sealed: string, ctx: SealContext, key: SealKey = currentSealKey()): string {
  return decrypt(key, VERSION, associatedData(ctx), sealed);
}

/** True for a value in format v1 (no context in its associated data). */
export function isLegacySealed(sealed: string): boolean {
  return sealed.startsWith(`${LEGACY_VERSION}.`);
}

/**
 * Opens an old-format (v1) value, bound to nothing. Only the re-seal paths in lib/sealed/ call this
 * (a test keeps it so): a normal read that accepted v1 would let a value copied between rows open.
 */
export function openLegacySecret(sealed: string, key: SealKey): string {
  return decrypt(key, LEGACY_VERSION, Buffer.from(LEGACY_VERSION), sealed);
}

/**
 * A keyed digest for a value the Hub hands out and later recognises without storing it (the callback
 * origin proof): HMAC-SHA256 under a key derived from the same secret material for `purpose` only.
 */
export function hubMac(purpose: string, message: string): string {
  const material = currentSealKey().bytes;
  const key = Buffer.from(hkdfSync("sha256", material, HKDF_SALT, `ma2h-hub/mac/${purpose}`, 32));
  return createHmac("sha256", key).update(message, "utf8").digest("base64url");
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

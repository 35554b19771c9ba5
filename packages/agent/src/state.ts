/**
 * §9.3 sealed `state`: the Hub round-trips `state` verbatim but it comes back UNTRUSTED, so the agent
 * seals it with a key only its own runtime holds (e.g. `MA2H_STATE_KEY`; never in `state`, never sent
 * to the Hub) and refuses to use anything that does not open.
 *
 * Format (a JSON object, usable as the envelope's `state`):
 *   { "ma2h_sealed": "v1", "salt": b64u(16 B), "iv": b64u(12 B), "ct": b64u(…), "tag": b64u(16 B) }
 * - key material: the key's bytes (a string key is its UTF-8 bytes), at least 32 of them;
 * - per blob: a random 16-byte salt; AES-256 key = HKDF-SHA256(ikm = key, salt, info = "ma2h-state v1");
 * - AES-256-GCM with a random 96-bit `iv`, the UTF-8 JSON of the value as plaintext, and the version
 *   tag "ma2h-state v1" as associated data; `tag` is the 128-bit GCM tag; b64u = unpadded base64url.
 * A fresh salt per blob means a fresh AES key per blob, so nonce reuse cannot arise however many
 * blobs one key seals. Anything that does not open — a tampered part, a wrong key, an unknown
 * version — is one StateIntegrityError that says no more (never the key, never the content).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { Ma2hError } from "./errors";

const VERSION = "v1";
const INFO = "ma2h-state v1";
const AAD = Buffer.from(INFO, "utf8");
const MIN_KEY_BYTES = 32;
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The sealed state did not open: tampered, sealed with another key, or not a sealed blob at all. */
export class StateIntegrityError extends Ma2hError {
  constructor(message = "the sealed state does not open with this key (tampered, wrong key or not sealed)") {
    super(message, { status: 0, code: "state_integrity" });
  }
}

/** Seals any JSON value into a `state` object only the holder of `key` can open. */
export function sealState(value: unknown, key: string | Uint8Array): Record<string, unknown> {
  const keyBytes = keyMaterial(key);
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError("the state value must be JSON-serializable");
  const salt = randomBytes(SALT_BYTES);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", derive(keyBytes, salt), iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(AAD);
  const ct = Buffer.concat([cipher.update(json, "utf8"), cipher.final()]);
  return { ma2h_sealed: VERSION, salt: b64u(salt), iv: b64u(iv), ct: b64u(ct), tag: b64u(cipher.getAuthTag()) };
}

/** Opens a blob made by sealState with the same key; throws StateIntegrityError otherwise. */
export function openState<T = unknown>(blob: unknown, key: string | Uint8Array): T {
  const keyBytes = keyMaterial(key);
  if (typeof blob !== "object" || blob === null || Array.isArray(blob)) throw new StateIntegrityError();
  const b = blob as Record<string, unknown>;
  if (b.ma2h_sealed !== VERSION) throw new StateIntegrityError();
  const salt = unb64u(b.salt, SALT_BYTES);
  const iv = unb64u(b.iv, IV_BYTES);
  const tag = unb64u(b.tag, TAG_BYTES);
  const ct = unb64u(b.ct);
  let plain: string;
  try {
    const decipher = createDecipheriv("aes-256-gcm", derive(keyBytes, salt), iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(AAD);
    decipher.setAuthTag(tag);
    plain = Buffer.concat([decipher.update(ct), decipher.final()]).toString("utf8");
  } catch {
    throw new StateIntegrityError();
  }
  return JSON.parse(plain) as T; // authenticated: exactly what sealState wrote
}

function keyMaterial(key: string | Uint8Array): Uint8Array {
  let bytes: Uint8Array;
  if (typeof key === "string") bytes = Buffer.from(key, "utf8");
  else if (key instanceof Uint8Array) bytes = key;
  else throw new TypeError("the state key must be a string or bytes");
  if (bytes.length < MIN_KEY_BYTES)
    throw new TypeError(
      `the state key is ${bytes.length} bytes; at least ${MIN_KEY_BYTES} are required (a short key can be guessed, §9.3)`,
    );
  return bytes;
}

function derive(key: Uint8Array, salt: Uint8Array): Buffer {
  return Buffer.from(hkdfSync("sha256", key, salt, INFO, 32));
}

function b64u(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64url");
}

/** Strict unpadded base64url of an exact (or any, when omitted) length; else not a sealed blob. */
function unb64u(value: unknown, length?: number): Buffer {
  if (typeof value !== "string" || !/^[A-Za-z0-9_-]*$/.test(value) || value.length % 4 === 1)
    throw new StateIntegrityError();
  const bytes = Buffer.from(value, "base64url");
  if (length !== undefined && bytes.length !== length) throw new StateIntegrityError();
  if (b64u(bytes) !== value) throw new StateIntegrityError(); // one encoding per byte string
  return bytes;
}

/**
 * Bearer credential formats: a distinct prefix tells an agent API key from an
 * operator personal access token; the rest is 32 random bytes, base64url (43 characters). Only
 * `hashCredential` of a credential is ever stored (lib/secrets).
 */
import { randomBytes } from "node:crypto";

export const API_KEY_PREFIX = "ma2h_key_";
export const PAT_PREFIX = "ma2h_pat_";
const BODY = /^[A-Za-z0-9_-]{43}$/;

export type CredentialKind = "api_key" | "pat";

function mint(prefix: string): string {
  return prefix + randomBytes(32).toString("base64url");
}

/** A fresh agent API key, in plaintext: shown once, then only its hash exists. */
export function mintApiKey(): string {
  return mint(API_KEY_PREFIX);
}

/** A fresh operator personal access token, in plaintext: shown once. */
export function mintPat(): string {
  return mint(PAT_PREFIX);
}

/** Which kind of credential `token` is by its shape, or null when it is neither. */
export function credentialKind(token: string): CredentialKind | null {
  if (token.startsWith(API_KEY_PREFIX) && BODY.test(token.slice(API_KEY_PREFIX.length))) return "api_key";
  if (token.startsWith(PAT_PREFIX) && BODY.test(token.slice(PAT_PREFIX.length))) return "pat";
  return null;
}

/**
 * The credential-change payload on CREDENTIALS_CHANNEL, `<kind>:<id>` — ids only, as on every
 * channel: `key:<api key id>`, `token:<PAT id>`, `person:<user id>` (every PAT of the person: their
 * tokens were revoked, or a seat or role of theirs changed), `agent:<agent row id>` and
 * `account:<account id>` (every key of the agent, of the account's agents). Each process's credential
 * cache (lib/principals/credential-cache.ts) drops what the payload names; a payload it cannot read
 * empties the cache, which is always safe.
 */
import type { Tx } from "../db";
import { CREDENTIALS_CHANNEL } from "./channels";
import { publishOn } from "./publish.sql";

export const CREDENTIAL_CHANGE_KINDS = ["key", "token", "person", "agent", "account"] as const;
export type CredentialChange = { kind: (typeof CREDENTIAL_CHANGE_KINDS)[number]; id: string };

const SEPARATOR = ":";

export function credentialChangePayload(change: CredentialChange): string {
  return `${change.kind}${SEPARATOR}${change.id}`;
}

/** The payload's change, or null for a malformed one. Ids hold no `:`, so the first one splits. */
export function parseCredentialChange(payload: string): CredentialChange | null {
  const at = payload.indexOf(SEPARATOR);
  const kind = payload.slice(0, at);
  const id = payload.slice(at + 1);
  if (at <= 0 || !id || !(CREDENTIAL_CHANGE_KINDS as readonly string[]).includes(kind)) return null;
  return { kind: kind as CredentialChange["kind"], id };
}

/**
 * Tells every process's credential cache of `change`, when `tx` commits (a rolled-back revocation
 * tells nobody). Called through `announceCredentialChange` (lib/principals/credential-cache.ts),
 * which also drops this process's entries after the commit.
 */
export async function publishCredentialChange(tx: Tx, change: CredentialChange): Promise<void> {
  await publishOn(tx, CREDENTIALS_CHANNEL, credentialChangePayload(change));
}

import { randomBytes } from "node:crypto";

/** §8.7.1 id namespaces for Hub-minted ids, plus the Hub's own internal prefixes. */
export const ID_PREFIX = {
  message: "msg_",
  resolution: "res_",
  directive: "dir_",
  receipt: "rcpt_",
  session: "sess_",
  account: "acct_",
  user: "usr_",
  membership: "mbr_",
  agent: "agt_",
  apiKey: "key_",
  token: "pat_",
  binding: "bnd_",
  bindingSecret: "sec_",
  delivery: "dlv_",
  jti: "jti_",
  request: "req_",
  webSession: "web_",
  identity: "idn_",
  notification: "ntf_",
  invitation: "inv_",
  slackIdentity: "sli_",
  slackPost: "slp_",
  teamsIdentity: "tmi_",
  teamsPost: "tmp_",
  pushSubscription: "psub_",
  group: "grp_",
  groupClaimMapping: "gcm_",
  sponsor: "spn_",
  standingRule: "rule_",
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lower case

/** Encodes bytes as Crockford base32 (5 bits a character). */
export function base32(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

/** A fresh unguessable id: the kind's prefix and 128 random bits. */
export function mintId(kind: IdKind): string {
  return ID_PREFIX[kind] + base32(randomBytes(16));
}

/**
 * Whether a path segment could name a message at all (`msg_` and up to 64 letters or digits), so a
 * page can answer 404 for anything else without a query.
 */
export function looksLikeMessageId(id: string): boolean {
  return /^msg_[0-9A-Za-z]{1,64}$/.test(id);
}

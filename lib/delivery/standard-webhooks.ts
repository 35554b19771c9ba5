/**
 * Standard Webhooks (standardwebhooks.com) headers, added to a push when its binding opted in —
 * beside the §9.2 `MA2H-Signature`, never instead of it. The id is the delivery obligation's (the
 * same on every retry, so a receiver dedups on it); the timestamp is the attempt's; the signature is
 * `v1,` + base64 HMAC-SHA256 over `id.timestamp.body` under the secret's decoded bytes.
 */
import { createHmac, randomBytes } from "node:crypto";

export const STANDARD_WEBHOOKS_PREFIX = "whsec_";

/** A new secret: 32 random bytes, base64, with the scheme's `whsec_` prefix. */
export function newStandardWebhooksSecret(): string {
  return STANDARD_WEBHOOKS_PREFIX + randomBytes(32).toString("base64");
}

export function standardWebhooksHeaders(
  secret: string,
  msg: { id: string; at: Date; body: string },
): Record<"webhook-id" | "webhook-timestamp" | "webhook-signature", string> {
  const key = Buffer.from(secret.slice(STANDARD_WEBHOOKS_PREFIX.length), "base64");
  const timestamp = String(Math.floor(msg.at.getTime() / 1000));
  const signature = createHmac("sha256", key).update(`${msg.id}.${timestamp}.${msg.body}`).digest("base64");
  return { "webhook-id": msg.id, "webhook-timestamp": timestamp, "webhook-signature": `v1,${signature}` };
}

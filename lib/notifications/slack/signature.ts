/**
 * Slack's request signing, v0 (Slack's "Verifying requests from Slack"): the signature is
 * `v0=` + hex HMAC-SHA256(signing secret, `v0:<X-Slack-Request-Timestamp>:<raw body>`). Checked in
 * constant time, and only within five minutes of the Hub's clock either way, so a captured request
 * cannot be replayed later. Pure: the caller reads the raw body and the clock.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_WINDOW_SECONDS = 5 * 60;

export function slackSignature(signingSecret: string, timestamp: string, rawBody: string): string {
  return `v0=${createHmac("sha256", signingSecret).update(`v0:${timestamp}:${rawBody}`, "utf8").digest("hex")}`;
}

export type SignatureVerdict = "ok" | "missing" | "stale" | "mismatch";

export function verifySlackSignature(
  signingSecret: string,
  headers: { timestamp: string | null; signature: string | null },
  rawBody: string,
  nowMs: number,
): SignatureVerdict {
  const { timestamp, signature } = headers;
  if (!timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) return "missing";
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > SIGNATURE_WINDOW_SECONDS) return "stale";
  const expected = Buffer.from(slackSignature(signingSecret, timestamp, rawBody), "utf8");
  const given = Buffer.from(signature, "utf8");
  return given.length === expected.length && timingSafeEqual(given, expected) ? "ok" : "mismatch";
}

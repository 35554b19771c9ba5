/**
 * What one attempt on any channel comes to (channels.ts): sent, or failed — transient (retried with
 * backoff by claims.ts `failOrRetry`) or permanent — with a short error class and the transport's
 * reply code (an SMTP reply, an HTTP status). Never a message text, address or token.
 */
export type SendResult =
  | { ok: true; responseCode: number | null }
  | { ok: false; transient: boolean; errorClass: string; responseCode: number | null };

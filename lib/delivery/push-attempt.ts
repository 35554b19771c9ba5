/**
 * §8.3 push delivery of one obligation row: claim it (a lease, so two workers never send the same
 * attempt), rebuild the §6 Response from PostgreSQL, sign it afresh (§9.2: new `t` and `jti` each
 * attempt, same `resolution_id` and body), send it through the SSRF-safe egress client (§9.4), record
 * the attempt, and decide: delivered, retry later, or final. Every outcome is a row; nothing lives
 * only in a queue (§3.1).
 */
import { clock } from "../clock";
import { env } from "../env";
import { log } from "../log";
import { metrics } from "../metrics/registry";
import { callbackOf, type Callback } from "@ma2h/protocol/message";
import { signResponsePush, type SigningKey } from "@ma2h/protocol/signing";
import { matchCallbackBinding, openBindingSecret } from "../principals/callback-bindings";
import { standardWebhooksSecretOf } from "./binding-webhooks";
import { accountSigningKey } from "../keys/signing-keys";
import { envelopeOf } from "../messages/record";
import { messageAndResolutionOf } from "../messages/row-read";
import { hubResponse } from "../messages/serialize";
import { postJson, type EgressResult } from "./egress";
import { keptAliveAgents } from "./egress-agents";
import { standardWebhooksHeaders } from "./standard-webhooks";
import { recordDelivery, recordPushAttempt } from "../telemetry/spans";
import { deliveryPolicy, devCallbackAllowlist, originKey } from "./policy";
import { nextAttemptAt, verdictForStatus } from "./schedule";
import { type ClaimedBinding, type ClaimedPush, runClaimPushAttempt, runRecordPushOutcome } from "./push-attempt.sql";

export type AttemptOutcome = "delivered" | "retry" | "failed" | "exhausted" | "refused" | "binding_revoked" | "skipped";

/**
 * Claims the row for one attempt — a lease, so two workers never send the same attempt — and loads
 * the message, its resolution and the agent's active bindings in the same statement; null when the
 * row is not due, not pending, or leased elsewhere.
 */
function claim(id: string, now: Date): Promise<ClaimedPush | null> {
  return runClaimPushAttempt(id, now);
}

interface Prepared {
  url: string;
  body: string;
  headers: Record<string, string>;
}

/** A named secret of the matched binding, opened; null when the binding does not hold it. */
function secretOf(binding: ClaimedBinding, ref: string): string | null {
  const held = binding.secrets.find((s) => s.ref === ref);
  return held ? openBindingSecret(binding, ref, held.sealed) : null;
}

/**
 * The key that signs this attempt (§9.2): the callback's HMAC secret under `auth.scheme: hmac`, else
 * the active ed25519 key of the message's ACCOUNT — never the Hub-wide one, so an answer of one
 * account does not verify at a receiver that pins another account's key id; plus the bearer /
 * API-key credential when the callback names one. Null when the binding no longer yields the secret.
 */
async function credentials(
  accountId: string,
  binding: ClaimedBinding,
  auth: Callback["auth"],
): Promise<{ key: SigningKey; headers: Record<string, string> } | null> {
  if (auth?.scheme === "hmac") {
    const secret = secretOf(binding, auth.secret_ref as string);
    return secret === null ? null : { key: { alg: "hmac-sha256", secret }, headers: {} };
  }
  const headers: Record<string, string> = {};
  if (auth?.token_ref) {
    const token = secretOf(binding, auth.token_ref);
    if (token === null) return null;
    if (auth.scheme === "bearer") headers.authorization = `Bearer ${token}`;
    else headers["x-api-key"] = token;
  }
  const { privateKey } = await accountSigningKey(accountId);
  return { key: { alg: "ed25519", privateKey }, headers };
}

/** Body, signature and credential for one attempt; null when the binding no longer allows it. */
async function prepare(claimed: ClaimedPush): Promise<Prepared | null> {
  const { message, resolution } = messageAndResolutionOf(claimed);
  if (!resolution) throw new Error("push obligation without a resolution");
  const callbackUrl = claimed.d_callbackUrl;
  const auth = callbackOf(envelopeOf(message))?.auth;
  const ref = auth?.scheme === "hmac" ? auth.secret_ref : auth?.token_ref;
  // §9.4: the same match as at submit, on the bindings as they are now — revoked since: nothing sent.
  const binding = matchCallbackBinding(claimed.bindings, callbackUrl, ref);
  if (!binding) return null;
  const creds = await credentials(message.accountId, binding.candidate, auth);
  if (!creds) return null;
  const webhooks = standardWebhooksSecretOf(binding.row);
  if (webhooks.on && webhooks.secret === null) return null; // sealed for another destination: withheld

  const response = hubResponse(message, resolution);
  const now = clock.now();
  // §9.2: a fresh `t` and `jti` per attempt; same body and `resolution_id`.
  const { header } = signResponsePush({ response, callbackUrl, key: creds.key, now });
  const body = JSON.stringify(response);
  return {
    url: callbackUrl,
    body,
    headers: {
      ...creds.headers,
      "ma2h-signature": header,
      // Beside §9.2's signature, never instead; the obligation's id is stable across retries.
      ...(webhooks.on && webhooks.secret
        ? standardWebhooksHeaders(webhooks.secret, { id: claimed.d_id, at: now, body })
        : {}),
    },
  };
}

/** §9.4: plaintext or loopback callbacks only in dev mode, and only to exactly allowlisted origins. */
export function transportAllowed(url: string): boolean {
  const parsed = new URL(url);
  if (parsed.protocol === "https:") return true;
  return env().MA2H_DEV_MODE && devCallbackAllowlist().has(originKey(parsed));
}

async function send(p: Prepared): Promise<EgressResult> {
  if (!transportAllowed(p.url)) {
    return {
      ok: false,
      errorClass: "refused_url",
      detail: "plaintext callback outside the dev allowlist",
      latencyMs: 0,
    };
  }
  return postJson(p.url, p.body, {
    headers: p.headers,
    timeoutMs: deliveryPolicy().timeoutMs,
    allowLoopback: env().MA2H_DEV_MODE ? devCallbackAllowlist() : new Set(),
    keepAlive: keptAliveAgents(),
  });
}

function outcomeOf(result: EgressResult): "delivered" | "retry" | "failed" | "refused" {
  if (result.ok) return verdictForStatus(result.status);
  if (result.errorClass === "refused_address" || result.errorClass === "refused_url") return "refused";
  return "retry"; // timeouts, DNS and network errors, TLS failures, oversized answers
}

/** Counted once the attempt's rows commit; the latency only of an attempt that was sent. */
function countAttempt(outcome: AttemptOutcome, result: EgressResult | null): void {
  const m = metrics();
  m.pushAttempts.inc({ outcome });
  if (result && result.latencyMs > 0) m.pushDuration.observe({ outcome }, result.latencyMs / 1000);
}

/**
 * One attempt at one obligation. Returns what happened, the obligation's attempt count after it, and,
 * for a retry, when the next is due. Two statements: the claim (with everything the attempt sends)
 * and the outcome (with the delivery stamp on a 2xx).
 */
export async function attemptPush(
  deliveryId: string,
): Promise<{ outcome: AttemptOutcome; attempts?: number; nextAt?: Date }> {
  const startedAt = clock.now();
  const claimed = await claim(deliveryId, startedAt);
  if (!claimed) return { outcome: "skipped" };
  const attempt = claimed.d_cycleAttempts + 1;
  const prepared = await prepare(claimed);
  const result: EgressResult | null = prepared ? await send(prepared) : null;
  const now = clock.now();

  let outcome: AttemptOutcome = result ? outcomeOf(result) : "binding_revoked";
  let nextAt: Date | null = null;
  if (outcome === "retry") {
    nextAt = nextAttemptAt(deliveryPolicy().retry, claimed.d_cycleStartedAt, now, attempt);
    if (!nextAt) outcome = "exhausted";
  }
  const errorClass =
    result && !result.ok ? result.errorClass : outcome === "binding_revoked" ? "binding_revoked" : null;
  const recorded = await runRecordPushOutcome({
    deliveryId,
    attempt: claimed.d_attempts + 1,
    cycleAttempts: attempt,
    startedAt,
    now,
    statusCode: result?.ok ? result.status : null,
    latencyMs: result?.latencyMs ?? 0,
    errorClass,
    outcome,
    status: outcome === "retry" ? "pending" : outcome,
    nextAttemptAt: nextAt ?? claimed.d_nextAttemptAt,
    lastError:
      result && !result.ok ? result.errorClass : result?.ok && outcome !== "delivered" ? `http_${result.status}` : null,
    // §14.2: a 2xx push delivers the answer — the response track's first stamp wins (pull or push).
    delivered:
      outcome === "delivered" ? { resolutionId: claimed.d_resolutionId, via: "push", actor: "system:push" } : null,
  });
  countAttempt(outcome, result);
  // The agent's trace shows each attempt and, once delivered, the time the answer took to reach it.
  await recordPushAttempt({
    messageId: claimed.id,
    attempt: claimed.d_attempts + 1,
    outcome,
    status: result?.ok ? result.status : null,
    errorClass: result && !result.ok ? result.errorClass : null,
    startedAt,
    endedAt: now,
  });
  if (outcome === "delivered") await recordDelivery(claimed.d_resolutionId, "push", now);
  log.info("push attempt", {
    delivery_id: deliveryId,
    attempt: claimed.d_attempts + 1,
    outcome,
    status: result?.ok ? result.status : null,
    error_class: result && !result.ok ? result.errorClass : null,
    latency_ms: result?.latencyMs ?? 0,
  });
  const attempts = recorded ?? claimed.d_attempts + 1;
  return nextAt ? { outcome, attempts, nextAt } : { outcome, attempts };
}

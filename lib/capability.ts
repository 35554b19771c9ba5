/**
 * §8.0 capability document, built from the same configuration that enforces each limit. Optional
 * modules this Hub does not offer yet (inbound, ack, presence, sessions, inter_agent) are omitted,
 * which is how §8.0 says "not here".
 */
import { deliveryPolicy } from "./delivery/policy";
import { limits } from "./env";
import { HUB_VERSION } from "./protocol/versions";

export function capabilityDocument(): Record<string, unknown> {
  const l = limits();
  const p = deliveryPolicy();
  return {
    ma2h_version: HUB_VERSION,
    max_body_bytes: l.maxBodyBytes,
    max_part_bytes: l.maxPartBytes,
    max_context_parts: l.maxContextParts,
    auth_schemes: ["bearer", "apikey"],
    callback_auth_schemes: ["hmac", "bearer", "apikey"],
    signature_algs: ["hmac-sha256", "ed25519"],
    rate_limit: { requests_per_minute: l.requestsPerMinute, inbox_depth: l.inboxDepth },
    retention_days: l.retentionDays,
    replay_window_seconds: l.replayWindowSeconds,
    // Extensions for limits §8 calls "advertised" but gives no field (docs/decisions.md).
    max_wait_seconds: l.maxWaitSeconds,
    idempotency_ttl_seconds: l.idempotencyTtlSeconds,
    callback_max_attempts: p.retry.maxAttempts,
    callback_max_duration_seconds: Math.floor(p.retry.maxDurationMs / 1000),
  };
}
